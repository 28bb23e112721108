package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// validateSARIF checks data against the published SARIF 2.1.0 schema
// (testdata/schemas, see NOTICE there) and returns it decoded.
func validateSARIF(t *testing.T, data string) map[string]any {
	t.Helper()
	c := jsonschema.NewCompiler()
	f, err := os.Open("testdata/schemas/sarif-schema-2.1.0.json")
	require.NoError(t, err)
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	require.NoError(t, c.AddResource("sarif-schema-2.1.0.json", schemaDoc))
	sch, err := c.Compile("sarif-schema-2.1.0.json")
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(data))
	require.NoError(t, err, "not JSON:\n%s", data)
	require.NoError(t, sch.Validate(doc), "SARIF report:\n%s", data)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(data), &out))
	return out
}

// lineOf returns the first line of file (1-based) that contains s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), s) {
			return n
		}
	}
	t.Fatalf("%s has no line with %q", file, s)
	return 0
}

// sarifResults returns the results of the report's one run, and its rules
// by id.
func sarifResults(t *testing.T, doc map[string]any) ([]map[string]any, map[string]map[string]any) {
	t.Helper()
	runs := doc["runs"].([]any)
	require.Len(t, runs, 1)
	run := runs[0].(map[string]any)
	rules := map[string]map[string]any{}
	driver := run["tool"].(map[string]any)["driver"].(map[string]any)
	if rs, ok := driver["rules"].([]any); ok {
		for _, r := range rs {
			rules[r.(map[string]any)["id"].(string)] = r.(map[string]any)
		}
	}
	var results []map[string]any
	for _, r := range run["results"].([]any) {
		results = append(results, r.(map[string]any))
	}
	return results, rules
}

func location(r map[string]any) (string, float64) {
	locs, _ := r["locations"].([]any)
	if len(locs) == 0 {
		return "", 0
	}
	pl := locs[0].(map[string]any)["physicalLocation"].(map[string]any)
	return pl["artifactLocation"].(map[string]any)["uri"].(string), pl["region"].(map[string]any)["startLine"].(float64)
}

// A report of the bundled Bookshop: a rule per row with a finding, at its
// level, a result per finding on the tool's handler line, valid SARIF.
func TestSARIFReport(t *testing.T) {
	rule := func(id string, level servercheck.Status) servercheck.Rule {
		return servercheck.Rule{ID: id, Level: level, Spec: "server/tools, MUST", Doc: "Every call answers. The rest."}
	}
	rep := &report{Server: "the Bookshop", started: time.Now()}
	rep.add(servercheck.Result{Name: "ping", Status: servercheck.Pass, Rule: rule("ping", servercheck.Fail)})
	rep.add(servercheck.Result{Name: "tools/calls/get_author", Status: servercheck.Fail, Detail: "called get_author\nit crashed",
		Rule: rule("tools/calls/<tool>", servercheck.Fail)})
	rep.add(servercheck.Result{Name: "tools/names", Status: servercheck.Warn, Detail: "a name", Rule: rule("tools/names", servercheck.Warn)})
	rep.add(servercheck.Result{Name: "lint/descriptions/books_by_author", Status: servercheck.Pass, Detail: "parameter author: one word",
		Rule: rule("lint/descriptions/<tool>", servercheck.Warn)})
	rep.add(servercheck.Result{Name: "resources/list", Status: servercheck.Skip, Detail: "not declared"})
	var b strings.Builder
	require.NoError(t, writeSARIF(&b, rep, locatorFor(&server{})))
	doc := validateSARIF(t, b.String())
	results, rules := sarifResults(t, doc)

	require.Len(t, results, 3, "a result per finding: the failure, the warning, the lint note")
	assert.Len(t, rules, 3)
	levels := map[string]string{}
	for _, r := range results {
		levels[r["ruleId"].(string)] = r["level"].(string)
	}
	assert.Equal(t, map[string]string{"tools/calls/<tool>": "error", "tools/names": "warning", "lint/descriptions/<tool>": "note"}, levels)
	assert.Equal(t, "warning", rules["tools/names"]["defaultConfiguration"].(map[string]any)["level"])
	assert.Equal(t, "server/tools, MUST", rules["tools/calls/<tool>"]["properties"].(map[string]any)["spec"])
	// The requirement table's sentences that the rule judges.
	assert.NotEmpty(t, rules["tools/calls/<tool>"]["properties"].(map[string]any)["requirements"])
	assert.Contains(t, rules["tools/calls/<tool>"]["help"].(map[string]any)["text"], "MUST")

	file := filepath.Join("..", "..", "examples", "bookshop", "bookshop.go")
	uri, line := location(results[0])
	assert.Equal(t, "examples/bookshop/bookshop.go", uri)
	assert.Equal(t, lineOf(t, file, "mcp.AddTool(s, getAuthorTool(), func("), int(line), "get_author's handler")
	uri, line = location(results[2])
	assert.Equal(t, "examples/bookshop/bookshop.go", uri)
	assert.Equal(t, lineOf(t, file, "}, func(ctx context.Context, _ *mcp.CallToolRequest, in BooksByAuthorInput)"), int(line), "books_by_author's handler")
	uri, line = location(results[1])
	assert.Equal(t, "examples/bookshop/bookshop.go", uri, "a finding about no tool: the server's entry")
	assert.Equal(t, lineOf(t, file, "func New("), int(line))
}

// A report with nothing found, and one of a run that could not connect,
// are valid SARIF too.
func TestSARIFReportEmpty(t *testing.T) {
	for _, rep := range []*report{
		{Server: "x"},
		{Server: "http://127.0.0.1:1/mcp", Error: "could not connect", stage: "connect"},
	} {
		var b strings.Builder
		require.NoError(t, writeSARIF(&b, rep, nil))
		results, _ := sarifResults(t, validateSARIF(t, b.String()))
		assert.Empty(t, results)
	}
}

// A Go server run with "go run": check --format sarif locates the failure
// of its tool on the handler's line, and on GitHub Actions the same
// finding becomes an annotation there, and the run a step summary.
func TestSARIFGoRun(t *testing.T) {
	serverBinary(t) // go run's build is then in the cache
	summaryFile := filepath.Join(t.TempDir(), "summary.md")
	env := []string{"STDIOSERVER_BROKEN=1", "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + summaryFile}
	r := mcptestkit(t, env, "check", "--format", "sarif", "--run", "tools/(calls|descriptions)", "--", "go", "run", "./testdata/stdioserver")
	require.Equal(t, exitFail, r.code, "%s", r)
	results, _ := sarifResults(t, validateSARIF(t, r.stdout))
	byRule := map[string]map[string]any{}
	for _, res := range results {
		byRule[res["ruleId"].(string)] = res
	}
	require.Contains(t, byRule, "tools/calls/<tool>", r.stdout)
	uri, line := location(byRule["tools/calls/<tool>"])
	want := lineOf(t, "testdata/stdioserver/main.go", `mcp.AddTool(s, &mcp.Tool{Name: "explode"}`)
	assert.Equal(t, "cmd/mcptestkit/testdata/stdioserver/main.go", uri)
	assert.Equal(t, want, int(line))

	// The annotations, on stderr, where a JSON or SARIF report on stdout
	// does not get them.
	assert.Contains(t, r.stderr, "::error file=cmd/mcptestkit/testdata/stdioserver/main.go,line="+strconv.Itoa(want)+",title=mcptestkit tools/calls/explode::called tool \"explode\"")
	assert.Regexp(t, `(?m)^::warning file=cmd/mcptestkit/testdata/stdioserver/main.go,line=\d+,title=mcptestkit tools/descriptions::tools without a description`, r.stderr)
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		assert.True(t, strings.HasPrefix(l, "::"), "one workflow command a line, its newlines escaped: %q", l)
	}
	md, err := os.ReadFile(summaryFile)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| ❌ failed | 1 |")
	assert.Contains(t, string(md), "<details><summary>❌ <code>tools/calls/explode</code>: called tool &#34;explode&#34;")
}
