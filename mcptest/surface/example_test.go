package surface_test

import (
	"fmt"

	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

// A report as the harness writes it, read back: one tool called with one of
// its two arguments, the other tool never called.
func ExampleReport_Listing() {
	r := &surface.Report{Servers: map[string]*surface.Server{"bookshop": {
		Tools: map[string]*surface.Tool{
			"get_author": {Declared: true, Calls: map[string]int{surface.Tests: 2},
				Arguments: map[string]*surface.Argument{
					"title": {Declared: true, Required: true, Given: map[string]int{surface.Tests: 2}},
					"lang":  {Declared: true, Enum: []string{`"en"`, `"fr"`}, Given: map[string]int{surface.Tests: 1}, Sent: map[string]map[string]int{surface.Tests: {`"en"`: 1}}},
				},
				Outcomes: map[string]map[string]int{surface.Tests: {"success": 1, "isError": 1}}},
			"books_by_author": {Declared: true},
		},
	}}}
	fmt.Print(r.Listing(surface.Tests))
	fmt.Println(r.Missing(surface.Tests, "books_by_author"))
	// Output:
	// mcp surface of bookshop (tests): tools 1/2, arguments 2/2, optional omitted 1/1, enum values 1/2, resources 0/0, templates 0/0, prompts 0/0; outcomes: 1 success, 1 isError, 0 error, 0 crash, 0 timeout
	// never exercised:
	// 	tool books_by_author
	// not covered:
	// 	tool get_author: argument lang never sent "fr"
	// []
}
