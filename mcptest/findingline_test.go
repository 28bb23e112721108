package mcptest

import (
	"fmt"
	"os"
	"regexp"
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
	out, line, _ := runFailingCheckChild(t, "-test.v=test2json")
	want := fmt.Sprintf("mcptest: FAIL unknown-method check_test.go:%d: sent mcptestkit/no-such-method; got JSON-RPC error -32603", line)
	re := regexp.MustCompile(`(?m)^\s*` + regexp.QuoteMeta(want) + `.*$`)
	if !re.Match(out) {
		t.Errorf("no line %q in the output:\n%s", want, out)
	}
}
