package guard_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// The guards are production code: nothing they import, directly or through
// mcptestkit's packages, may be the test kit or package testing. Each SDK's
// guard lives in that SDK's module (../gosdk, ../mcpgo) and may use its own
// module's internal packages and this package, nothing else of mcptestkit.
func TestGuardDoesNotImportTheTestKit(t *testing.T) {
	const module = "github.com/mcptestkit/mcptestkit/"
	allowed := func(from, imp string) bool {
		if imp == module+"guard" {
			return true
		}
		for _, m := range []string{"gosdk", "mcpgo"} {
			if strings.HasPrefix(from, module+m) && strings.HasPrefix(imp, module+m+"/internal/") {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	var walk func(path string)
	walk = func(path string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkg, err := build.ImportDir(filepath.Join("..", strings.TrimPrefix(path, module)), 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			switch {
			case imp == "testing" || strings.HasPrefix(imp, "testing/"):
				t.Errorf("%s imports %s", path, imp)
			case allowed(path, imp):
				walk(imp)
			case strings.HasPrefix(imp, module):
				t.Errorf("%s imports %s: the guard must not depend on the rest of mcptestkit", path, imp)
			}
		}
	}
	for _, p := range []string{"guard", "gosdk", "mcpgo"} {
		walk(module + p)
	}
	for _, p := range []string{"gosdk/internal/contract", "mcpgo/internal/contract"} {
		if !seen[module+p] {
			t.Errorf("the walk did not reach %s: it reads nothing", p)
		}
	}
}
