package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// Every true positive of every rule of gitleaks' default set, through the
// redactor, and through both recording proxies as a client's argument and
// the server's answer (the Bookshop names an unknown title back): the
// cassette holds none of the secrets gitleaks finds in them.
func TestGitleaksVectorsNeverReachACassette(t *testing.T) {
	vs := gitleaksVectors(t)
	rules := map[string]bool{}
	withSecret := 0
	for _, v := range vs {
		rules[v.Rule] = true
		if len(v.Secrets) > 0 {
			withSecret++
		}
	}
	t.Logf("%d vectors of %d rules, %d with a secret gitleaks finds", len(vs), len(rules), withSecret)
	ids, err := cassette.GitleaksRules()
	require.NoError(t, err)
	for _, id := range ids {
		if !rules[id] {
			t.Logf("rule %s has no vector", id)
		}
	}
	require.Greater(t, withSecret, 300)
	// Every rule, up to perRule of its vectors (a rule makes about 30,
	// most alike: the first few are enough, and keep the test to a minute
	// under -race on a busy machine).
	const perRule = 4
	var sample []vector
	taken := map[string]int{}
	for _, v := range vs {
		if len(v.Secrets) > 0 && taken[v.Rule] < perRule {
			taken[v.Rule]++
			sample = append(sample, v)
		}
	}
	t.Logf("%d vectors run, of %d rules", len(sample), len(taken))
	vs = sample

	t.Run("redactor", func(t *testing.T) {
		red, err := cassette.NewRedactor(nil)
		require.NoError(t, err)
		for _, v := range vs {
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": v.Text}}, "structuredContent": map[string]any{"note": v.Text}}})
			assert.Empty(t, leaked(red.Message(msg), []vector{v}))
		}
	})

	// Through the proxies, a call for each vector, as the title of an
	// unknown book: in the client's request and in the server's answer.
	var batches [][]vector
	for _, v := range vs {
		batches = append(batches, []vector{v})
	}
	calls := func(t *testing.T, c *client.Client) {
		for _, b := range batches {
			_, err := c.CallTool(t.Context(), "get_author", map[string]any{"title": b[0].Text})
			require.NoError(t, err)
		}
	}
	// check finds, for each vector, its call and its answer in the
	// cassette at path, and none of the vector's secrets in them.
	check := func(t *testing.T, path string) {
		c, err := cassette.ReadFile(path)
		require.NoError(t, err)
		byID := map[string][]byte{}
		var ids []string
		for _, f := range c.Frames {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			require.NoError(t, json.Unmarshal(f.Msg, &m))
			if len(m.ID) == 0 {
				continue
			}
			if m.Method == "tools/call" && m.Params.Name == "get_author" {
				ids = append(ids, string(m.ID))
			}
			byID[string(m.ID)] = append(byID[string(m.ID)], f.Msg...)
		}
		require.Len(t, ids, len(batches), "every call recorded")
		for i, b := range batches {
			assert.Empty(t, leaked(byID[ids[i]], b))
		}
	}
	t.Run("stdio proxy", func(t *testing.T) {
		bin, err := binary()
		require.NoError(t, err)
		path := filepath.Join(t.TempDir(), "vectors.cassette")
		tr, err := transport.Command(exec.Command(bin, "record", "-o", path, "--", serverBinary(t)))
		require.NoError(t, err)
		c, err := client.Connect(t.Context(), tr, &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		calls(t, c)
		require.NoError(t, c.Close())
		check(t, path)
	})
	t.Run("http proxy", func(t *testing.T) {
		target := serveSDK(t, bookshop.New(slog.New(slog.DiscardHandler)), nil)
		path := filepath.Join(t.TempDir(), "vectors.cassette")
		cmd, proxyURL := startHTTPProxy(t, path, target.URL)
		c, err := client.Connect(t.Context(), transport.HTTP(proxyURL), &client.Options{ProtocolVersion: client.Version20251125})
		require.NoError(t, err)
		calls(t, c)
		require.NoError(t, c.Close())
		require.NoError(t, cmd.Process.Signal(os.Interrupt))
		require.NoError(t, cmd.Wait())
		check(t, path)
	})
}

// vector is one of gitleaks' own test vectors (a rule's true positives)
// and the secrets gitleaks' detector finds in it.
type vector struct {
	Rule    string   `json:"rule"`
	Text    string   `json:"text"`
	Secrets []string `json:"secrets"`
}

// gitleaksModule is the module whose vectors are run, at the version the
// cassette engine requires.
const gitleaksModule = "github.com/zricethezav/gitleaks/v8"

var (
	vectorsOnce sync.Once
	vectorsErr  error
	vectorsAll  []vector
)

// gitleaksVectors returns the true positives of every rule of gitleaks'
// default set. They are written in its rules' source (cmd/generate/config/
// rules, each rule a function that builds its samples, many at random from
// the rule's own pattern, and hands them to utils.Validate), so they are
// gathered by building that package, from the module cache, with
// utils.Validate replaced by a function that keeps them, and running every
// rule; then gitleaks' own detector says which secrets each holds. Nothing
// of gitleaks is kept in this repository: the copy is built in a temporary
// directory.
func gitleaksVectors(t *testing.T) []vector {
	t.Helper()
	vectorsOnce.Do(func() { vectorsAll, vectorsErr = buildVectors(t) })
	require.NoError(t, vectorsErr)
	return vectorsAll
}

func buildVectors(t *testing.T) ([]vector, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}} {{.Dir}}", gitleaksModule).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go list -m %s: %v\n%s", gitleaksModule, err, out)
	}
	version, dir, _ := strings.Cut(strings.TrimSpace(string(out)), " ")
	if dir == "" {
		dl, err := exec.Command("go", "mod", "download", "-json", gitleaksModule+"@"+version).Output()
		if err != nil {
			return nil, fmt.Errorf("go mod download %s@%s: %v", gitleaksModule, version, err)
		}
		var m struct{ Dir string }
		_ = json.Unmarshal(dl, &m)
		dir = m.Dir
	}
	src := filepath.Join(dir, "cmd", "generate", "config", "rules")
	tmp, err := os.MkdirTemp("", "gitleaks-vectors")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	for _, d := range []string{"rules", "capture"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return nil, err
		}
	}
	files, _ := filepath.Glob(filepath.Join(src, "*.go"))
	var funcs []string
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		text := string(data)
		if strings.Contains(text, "utils.Validate") {
			text = strings.ReplaceAll(text, "utils.Validate(", "capture.Validate(")
			text = strings.ReplaceAll(text, "utils.ValidateWithPaths(", "capture.ValidateWithPaths(")
			text = strings.Replace(text, "import (", "import (\n\tcapture \"vectors/capture\"", 1)
			text += "\nvar _ = utils.AlphaNumeric\n"
		}
		if err := os.WriteFile(filepath.Join(tmp, "rules", filepath.Base(f)), []byte(text), 0o644); err != nil {
			return nil, err
		}
		parsed, err := goparser.ParseFile(fset, f, data, goparser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range parsed.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && fd.Name.IsExported() && fd.Type.Params.NumFields() == 0 &&
				fd.Type.Results.NumFields() == 1 && types(fd.Type.Results.List[0].Type) == "*config.Rule" {
				funcs = append(funcs, fd.Name.Name)
			}
		}
	}
	var calls strings.Builder
	for _, f := range funcs {
		fmt.Fprintf(&calls, "\trules.%s()\n", f)
	}
	gomod := fmt.Sprintf("module vectors\n\ngo 1.25\n\nrequire %s %s\n", gitleaksModule, version)
	for name, text := range map[string]string{
		"go.mod":             gomod,
		"capture/capture.go": captureSource,
		"main.go":            strings.Replace(mainSource, "\t// CALLS\n", calls.String(), 1),
	} {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(text), 0o644); err != nil {
			return nil, err
		}
	}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = tmp
	tidy.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if out, err := tidy.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go mod tidy of the vectors' program: %v\n%s", err, out)
	}
	run := exec.Command("go", "run", ".")
	run.Dir = tmp
	run.Env = append(os.Environ(), "GOWORK=off")
	var stdout, stderr bytes.Buffer
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Run(); err != nil {
		return nil, fmt.Errorf("the vectors' program: %v\n%s", err, stderr.String())
	}
	var vs []vector
	if err := json.Unmarshal(stdout.Bytes(), &vs); err != nil {
		return nil, err
	}
	return vs, nil
}

// types renders a type expression as written.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + types(e.X)
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

const captureSource = `package capture

import "github.com/zricethezav/gitleaks/v8/config"

type Sample struct {
	Rule, Text, Path string
}

var Samples []Sample

func Validate(r config.Rule, tps, _ []string) *config.Rule {
	for _, tp := range tps {
		Samples = append(Samples, Sample{Rule: r.RuleID, Text: tp})
	}
	return &r
}

func ValidateWithPaths(r config.Rule, tps, _ map[string]string) *config.Rule {
	for path, tp := range tps {
		Samples = append(Samples, Sample{Rule: r.RuleID, Text: tp, Path: path})
	}
	return &r
}
`

const mainSource = `package main

import (
	"encoding/json"
	"os"

	"github.com/zricethezav/gitleaks/v8/detect"

	"vectors/capture"
	"vectors/rules"
)

type vector struct {
	Rule    string   ` + "`json:\"rule\"`" + `
	Text    string   ` + "`json:\"text\"`" + `
	Secrets []string ` + "`json:\"secrets\"`" + `
}

func main() {
	// CALLS
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		panic(err)
	}
	var out []vector
	for _, s := range capture.Samples {
		v := vector{Rule: s.Rule, Text: s.Text, Secrets: []string{}}
		for _, f := range d.Detect(detect.Fragment{Raw: s.Text, FilePath: s.Path}) {
			v.Secrets = append(v.Secrets, f.Secret)
		}
		out = append(out, v)
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`

// leaked returns the secrets of vs found in data, in clear or as JSON
// writes them.
func leaked(data []byte, vs []vector) []string {
	var out []string
	for _, v := range vs {
		for _, s := range v.Secrets {
			if len(s) < 6 {
				continue // too short to tell from ordinary text
			}
			q, _ := json.Marshal(s)
			if bytes.Contains(data, []byte(s)) || bytes.Contains(data, q[1:len(q)-1]) {
				out = append(out, v.Rule+": "+s)
			}
		}
	}
	return out
}
