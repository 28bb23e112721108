package guard_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// The guard is production code: nothing it imports, directly or through
// this module's packages, may be the test kit or package testing.
func TestGuardDoesNotImportTheTestKit(t *testing.T) {
	const module = "github.com/mcptestkit/mcptestkit/"
	seen := map[string]bool{}
	var walk func(path, dir string)
	walk = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			switch {
			case imp == "testing" || strings.HasPrefix(imp, "testing/"):
				t.Errorf("%s imports %s", path, imp)
			case strings.HasPrefix(imp, module+"guard"):
				walk(imp, filepath.Join("..", strings.TrimPrefix(imp, module)))
			case strings.HasPrefix(imp, module):
				t.Errorf("%s imports %s: the guard must not depend on the rest of mcptestkit", path, imp)
			}
		}
	}
	for _, p := range []string{"guard", "gosdk", "mcpgo"} {
		walk(module+p, filepath.Join("..", p))
	}
	if !seen[module+"guard/internal/contract"] {
		t.Error("the walk did not reach guard/internal/contract: it reads nothing")
	}
}
