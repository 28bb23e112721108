package mcptest

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// sdkModules are the MCP SDKs the root module must not depend on: its users
// pick theirs, and get its adapter from a module of its own (gosdk, mcpgo).
var sdkModules = []string{"github.com/modelcontextprotocol/go-sdk", "github.com/mark3labs/mcp-go"}

// The root module's go.mod names no SDK, and no .go file of the module (its
// tests and testdata included) imports an SDK or one of the repository's
// nested modules, which depend on the SDKs: the root module's tests must
// build and pass with GOWORK=off.
func TestRootModuleNeedsNoSDK(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if modulePath(gomod) != "github.com/mcptestkit/mcptestkit" {
		t.Fatalf("../go.mod is not the root module's: %q", modulePath(gomod))
	}
	sc := bufio.NewScanner(bytes.NewReader(gomod))
	for n := 1; sc.Scan(); n++ {
		line, _, _ := strings.Cut(sc.Text(), "//")
		for _, f := range strings.Fields(line) {
			if under(f, sdkModules) {
				t.Errorf("go.mod:%d names %s: the root module must not depend on an MCP SDK", n, f)
			}
		}
	}

	// The nested modules, found on the way, are left out of the walk and
	// forbidden as imports.
	forbidden := sdkModules
	type file struct{ path, rel string }
	var files []file
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if path == root {
				return nil
			}
			if nested, err := os.ReadFile(filepath.Join(path, "go.mod")); err == nil {
				forbidden = append(forbidden, modulePath(nested))
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			files = append(files, file{path, filepath.ToSlash(rel)})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(forbidden) < len(sdkModules)+2 || len(files) < 100 {
		t.Fatalf("the walk found %d nested modules and %d .go files: not the repository's layout", len(forbidden)-len(sdkModules), len(files))
	}
	fset := token.NewFileSet()
	for _, f := range files {
		ast, err := parser.ParseFile(fset, f.path, nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", f.rel, err)
			continue
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if under(p, forbidden) {
				t.Errorf("%s imports %s: the root module's code (tests and testdata included) must need no MCP SDK; a test with an SDK belongs in the integration module", f.rel, p)
			}
		}
	}
}

// modulePath returns the module path a go.mod declares.
func modulePath(gomod []byte) string {
	for line := range strings.Lines(string(gomod)) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			p, _ := strconv.Unquote(strings.TrimSpace(rest))
			if p == "" {
				p = strings.TrimSpace(rest)
			}
			return p
		}
	}
	return ""
}

// under reports whether path is one of the modules or in one.
func under(path string, modules []string) bool {
	for _, m := range modules {
		if path == m || strings.HasPrefix(path, m+"/") {
			return true
		}
	}
	return false
}
