package logcapture_test

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

const bubbleChild = "LOGCAPTURE_BUBBLE_CHILD"

// TestChildFailsInABubble fails on purpose inside synctest.Test, in a child
// process run by TestDumpInABubbleNamesTheTestsLine. newLine is the line of
// its call of New, which the dump must name.
func TestChildFailsInABubble(t *testing.T) {
	if os.Getenv(bubbleChild) == "" {
		t.Skip("run by TestDumpInABubbleNamesTheTestsLine")
	}
	synctest.Test(t, func(t *testing.T) {
		logs := logcapture.New(t)
		logs.Logger().Info("order placed", "id", 7)
		t.Error("the test failed")
	})
}

// The captured-log dump of a test that fails inside synctest.Test names the
// line that called New, not one of the testing package (testing.go: Go
// places a cleanup's report in a bubble at a line of its own).
func TestDumpInABubbleNamesTheTestsLine(t *testing.T) {
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildFailsInABubble$", "-test.count=1")
	cmd.Env = append(os.Environ(), bubbleChild+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child test passed:\n%s", out)
	}
	src, err := os.ReadFile(thisFile())
	if err != nil {
		t.Fatal(err)
	}
	newLine := 0
	for i, line := range strings.Split(string(src), "\n") {
		if strings.Contains(line, "logs := logcapture.New(t)") {
			newLine = i + 1
			break
		}
	}
	want := regexp.MustCompile(`bubble_test\.go:` + strconv.Itoa(newLine) + `: -+ Captured log -+\n\s+INFO  order placed id=7`)
	if !want.Match(out) {
		t.Errorf("the dump is not at bubble_test.go:%d, the line that called New:\n%s", newLine, out)
	}
}

func thisFile() string {
	_, file, _, _ := runtime.Caller(0)
	return file
}
