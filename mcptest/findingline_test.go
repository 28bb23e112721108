package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Each failing check ends with one line of a stable shape, which a CI
// step can turn into an annotation: "mcptest: FAIL <check> <file>:<line>:
// <first line of the detail>", at the test's CheckServer line.
func TestCheckServerFindingLine(t *testing.T) {
	if os.Getenv("MCPTEST_CHECK_CHILD") == "1" {
		t.Skip("the child runs only TestChildCheckServerFails")
	}
	t.Parallel()
	src, err := os.ReadFile("check_test.go")
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	for i, l := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(l, "// the line failures name") {
			line = i + 1
		}
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildCheckServerFails$", "-test.v=test2json")
	cmd.Env = append(os.Environ(), "MCPTEST_CHECK_CHILD=1")
	out, _ := cmd.CombinedOutput()
	want := fmt.Sprintf("mcptest: FAIL unknown-method check_test.go:%d: sent mcptestkit/no-such-method; got JSON-RPC error -32603", line)
	re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(want) + `.*$`)
	if !re.Match(out) {
		t.Errorf("no line %q in the output:\n%s", want, out)
	}
}
