package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

// Every method of Assertions, with an input it fails on: under Assert it
// reports, returns false or nil and lets the test go on; under Require it
// reports and calls FailNow exactly once; both report at the caller's line.
// The table must name every method, so a new one cannot skip its twin.
func TestAssertionsFailBothWays(t *testing.T) {
	t.Parallel()
	c := Connect(t, newTaskServer(5), WithProtocolVersion(client.Version20251125))
	tools := []*client.Tool{tool("a", `{"type":"object"}`, "")}
	// Each call on one line: the failure must be reported at that line.
	table := map[string]func(a *Assertions) any{
		"ToolSuccess":      func(a *Assertions) any { return a.ToolSuccess(textResult(true, "boom")) },
		"ToolError":        func(a *Assertions) any { return a.ToolError(textResult(true, "boom"), "bang", "crash") },
		"NoStructured":     func(a *Assertions) any { return a.NoStructured(structured(`{"a":1}`)) },
		"Text":             func(a *Assertions) any { return a.Text(textResult(false, "a"), "b") },
		"Structured":       func(a *Assertions) any { return a.Structured(structured(`{"a":1}`), map[string]int{"a": 2}) },
		"OutputSchema":     func(a *Assertions) any { return a.OutputSchema(tools[0], structured(`{}`)) },
		"ValidSchemas":     func(a *Assertions) any { return a.ValidSchemas(nil, tool("b", `{}`, "")) },
		"ProtocolError":    func(a *Assertions) any { return a.ProtocolError(&client.Error{Code: -32603}, -32602) },
		"ResourceNotFound": func(a *Assertions) any { return a.ResourceNotFound(nil, "books://Nothing") },
		"Tool":             func(a *Assertions) any { return a.Tool(tools, "nope") },
		"Task":             func(a *Assertions) any { return a.Task(c, "plain", nil) },
		"TaskStatuses":     func(a *Assertions) any { return a.TaskStatuses(nil, client.TaskCompleted) },
		"Golden":           func(a *Assertions) any { return a.Golden("", 1) },
	}

	var methods []string
	typ := reflect.TypeFor[*Assertions]()
	for i := range typ.NumMethod() {
		methods = append(methods, typ.Method(i).Name)
	}
	var named []string
	for name := range table {
		named = append(named, name)
	}
	slices.Sort(methods)
	slices.Sort(named)
	require.Equal(t, methods, named, "the table names every method of *Assertions, and only those")

	for name, call := range table {
		fn := runtime.FuncForPC(reflect.ValueOf(call).Pointer())
		file, line := fn.FileLine(fn.Entry())
		at := fmt.Sprintf("%s:%d", filepath.Base(file), line)
		for _, mode := range []struct {
			name  string
			new   func(TestingT) *Assertions
			stops int
		}{{"Assert", Assert, 0}, {"Require", Require, 1}} {
			r := &recorder{}
			got := call(mode.new(r))
			v := reflect.ValueOf(got)
			failed := (v.Kind() == reflect.Bool && !v.Bool()) || (v.Kind() == reflect.Pointer && v.IsNil())
			assert.True(t, failed, "%s(r).%s returned %v, want false or nil", mode.name, name, got)
			assert.NotEmpty(t, r.msgs, "%s(r).%s reported nothing", mode.name, name)
			assert.Equal(t, mode.stops, r.failNows, "%s(r).%s called FailNow %d times", mode.name, name, r.failNows)
			for _, a := range r.at {
				assert.Equal(t, at, a, "%s(r).%s reported a failure elsewhere than at the caller's line", mode.name, name)
			}
		}
	}
}

// The same with a real *testing.T, in a child process, which fails at the
// lines marked "reported here": the testing package must print those
// lines, not lines inside mcptest.
func TestFailuresPointAtTheCallerLine(t *testing.T) {
	const childEnv = "MCPTEST_FAILURE_LINES_CHILD"
	if os.Getenv(childEnv) == "1" {
		Assert(t).Text(textResult(false, "a"), "b")                // reported here
		Assert(t).ToolError(textResult(true, "boom"), "bang")      // reported here
		Require(t).ValidSchemas(tool("b", `{"type":"array"}`, "")) // reported here
		t.Error("not reached: Require stops the test")
		return
	}
	t.Parallel()
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), exe, "-test.run=^TestFailuresPointAtTheCallerLine$", "-test.count=1")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the child's test passed:\n%s", out)
	assert.NotContains(t, string(out), "not reached")

	src, err := os.ReadFile("assertions_test.go")
	require.NoError(t, err)
	var want []string
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// reported here") {
			want = append(want, strconv.Itoa(i+1))
		}
	}
	var got []string
	for _, m := range regexp.MustCompile(`(?m)^\s+(\S+_test\.go|[a-z]+\.go):(\d+): mcptest:`).FindAllStringSubmatch(string(out), -1) {
		got = append(got, m[1]+":"+m[2])
	}
	for i := range want {
		want[i] = "assertions_test.go:" + want[i]
	}
	assert.Equal(t, want, got, "the lines the failures are reported at; the child printed:\n%s", out)
}
