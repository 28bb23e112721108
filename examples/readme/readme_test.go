package readme

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// snippet is one ```go block of the README.
type snippet struct {
	line        int // of the opening fence
	code        string
	compileOnly bool // preceded by <!-- compile only: why -->: it needs a server of the reader's
}

// snippets returns the README's Go blocks.
func snippets(t *testing.T, readme string) []snippet {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	var prev string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && line == "```go":
			cur = &snippet{line: n, compileOnly: strings.HasPrefix(prev, "<!-- compile only:")}
		case cur != nil && line == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.code += line + "\n"
		}
		prev = line
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		t.Fatalf("README.md:%d: a ```go block that never ends", cur.line)
	}
	return out
}

// imports are the packages a snippet may use without an import clause of
// its own, by the name it uses them with.
var imports = map[string]string{
	"assert":     "github.com/stretchr/testify/assert",
	"bookshop":   "github.com/mcptestkit/mcptestkit/examples/bookshop",
	"cassette":   "github.com/mcptestkit/mcptestkit/mcptest/cassette",
	"client":     "github.com/mcptestkit/mcptestkit/client",
	"exec":       "os/exec",
	"gosdktest":  "github.com/mcptestkit/mcptestkit/gosdk/gosdktest",
	"logcapture": "github.com/mcptestkit/mcptestkit/logcapture",
	"mcpgotest":  "github.com/mcptestkit/mcptestkit/mcpgo/mcpgotest",
	"mcptest":    "github.com/mcptestkit/mcptestkit/mcptest",
	"os":         "os",
	"require":    "github.com/stretchr/testify/require",
	"slog":       "log/slog",
	"surface":    "github.com/mcptestkit/mcptestkit/mcptest/surface",
	"testing":    "testing",
}

// source is the test file a snippet becomes: a whole file as it is; top-level
// declarations under a package clause and the imports they use; statements
// inside a test function besides.
func (s snippet) source() string {
	if strings.HasPrefix(s.code, "package ") {
		return s.code
	}
	body := s.code
	decls := regexp.MustCompile(`(?m)^func `).MatchString(body)
	if !decls {
		body = "func TestSnippet(t *testing.T) {\n" + body + "}\n"
	}
	var b strings.Builder
	b.WriteString("package snippet\n\nimport (\n")
	for name, path := range imports {
		if regexp.MustCompile(`\b` + name + `\.`).MatchString(body) {
			fmt.Fprintf(&b, "\t%q\n", path)
		}
	}
	b.WriteString(")\n\n")
	b.WriteString(body)
	return b.String()
}

// Every Go snippet of README.md is gofmt-clean, compiles, and passes as a
// test, each in a package of its own inside a workspace of this
// repository's modules (with the Bookshop's recorded session in its
// testdata); a snippet marked <!-- compile only: ... --> only compiles.
func TestREADMESnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the README's snippets with the go command")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	all := snippets(t, filepath.Join(root, "README.md"))
	if len(all) == 0 {
		t.Fatal("README.md has no ```go block: the extraction is broken")
	}

	for _, s := range all {
		formatted, err := format.Source([]byte(s.code))
		if err != nil {
			t.Errorf("README.md:%d: the snippet does not parse: %v", s.line, err)
		} else if !bytes.Equal(formatted, []byte(s.code)) {
			t.Errorf("README.md:%d: the snippet is not gofmt-clean; gofmt makes it:\n%s", s.line, formatted)
		}
	}

	// A workspace of the repository's modules and one of the snippets.
	work := t.TempDir()
	out, err := exec.Command("go", "work", "edit", "-json", filepath.Join(root, "go.work")).Output()
	if err != nil {
		t.Fatalf("go work edit -json: %v", err)
	}
	var ws struct {
		Go  string
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal(out, &ws); err != nil {
		t.Fatal(err)
	}
	var gowork strings.Builder
	fmt.Fprintf(&gowork, "go %s\n\nuse (\n\t./snippets\n", ws.Go)
	for _, u := range ws.Use {
		fmt.Fprintf(&gowork, "\t%s\n", filepath.Join(root, u.DiskPath))
	}
	gowork.WriteString(")\n")
	write(t, filepath.Join(work, "go.work"), gowork.String())
	write(t, filepath.Join(work, "snippets", "go.mod"), "module snippets\n\ngo "+ws.Go+"\n")
	cassette, err := os.ReadFile(filepath.Join(root, "examples", "bookshop", "testdata", "session.cassette"))
	if err != nil {
		t.Fatal(err)
	}
	var run, compile []string
	where := map[string]int{}
	for i, s := range all {
		pkg := fmt.Sprintf("s%02d", i+1)
		dir := filepath.Join(work, "snippets", pkg)
		write(t, filepath.Join(dir, "snippet_test.go"), s.source())
		write(t, filepath.Join(dir, "testdata", "session.cassette"), string(cassette))
		where[pkg] = s.line
		if s.compileOnly {
			compile = append(compile, "./"+pkg)
		} else {
			run = append(run, "./"+pkg)
		}
	}
	goTest := func(args ...string) {
		cmd := exec.Command("go", append([]string{"test"}, args...)...)
		cmd.Dir = filepath.Join(work, "snippets")
		cmd.Env = append(os.Environ(), "GOWORK="+filepath.Join(work, "go.work"), "GOFLAGS=-count=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			var lines []string
			for pkg, line := range where {
				lines = append(lines, fmt.Sprintf("%s is the block at README.md:%d", pkg, line))
			}
			t.Errorf("go test %s: %v\n%s\n(%s)", strings.Join(args, " "), err, out, strings.Join(lines, "; "))
		}
	}
	goTest(run...)
	if len(compile) > 0 {
		goTest(append([]string{"-run", "^$"}, compile...)...)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
