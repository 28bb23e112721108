package jsonscan_test

import (
	"fmt"

	"github.com/mcptestkit/mcptestkit/mcpgo/internal/jsonscan"
)

func Example() {
	data := []byte(`{"name": "echo", "tags": ["a", "b"], "other": {"x": 1}}`)
	ok := jsonscan.Object(data, func(key []byte, escaped bool, value []byte) bool {
		switch {
		case escaped || jsonscan.Folds(key, "name", "tags") && string(key) != "name" && string(key) != "tags":
			return false // leave it to encoding/json
		case string(key) == "name":
			name, ok := jsonscan.String(value)
			fmt.Println("name:", name)
			return ok
		case string(key) == "tags":
			return jsonscan.Array(value, func(v []byte) bool {
				tag, ok := jsonscan.String(v)
				fmt.Println("tag:", tag)
				return ok
			})
		}
		fmt.Printf("skipped %s: %s\n", key, value)
		return true
	})
	fmt.Println(ok, jsonscan.Valid([]byte(`{"a":[1,]}`)))
	// Output:
	// name: echo
	// tag: a
	// tag: b
	// skipped other: {"x": 1}
	// true false
}
