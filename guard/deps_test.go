package guard_test

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// The guard is production code: nothing it imports, directly or through
// this module's packages, may be the test kit or package testing. (The
// guards themselves, gosdk and mcpgo, are modules of their own.)
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
	walk(module+"guard", filepath.Join("..", "guard")) // build.ImportDir fails on a directory with no Go files
}
