package textdiff_test

import (
	"fmt"

	"github.com/mcptestkit/mcptestkit/internal/textdiff"
)

func ExampleUnified() {
	fmt.Print(textdiff.Unified("golden", "actual", "a\nb\nc\n", "a\nB\nc\n"))
	// Output:
	// --- golden
	// +++ actual
	// @@ -1,3 +1,3 @@
	//  a
	// -b
	// +B
	//  c
}
