package mcptest

import (
	"os"
	"os/exec"
	"regexp"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
)

// TestChildFailsWithTranscript fails on purpose, in a child process run by
// TestTranscriptIsLabelledWithTheTestsLine.
func TestChildFailsWithTranscript(t *testing.T) {
	if os.Getenv("MCPTEST_LABEL_CHILD") != "1" {
		t.Skip("run by TestTranscriptIsLabelledWithTheTestsLine")
	}
	c := Connect(t, probeServer(), WithProtocolVersion(client.LatestLegacyVersion)) // the line the transcript names
	_ = c
	t.Errorf("failing on purpose")
}

// Issue 13.5: what the harness prints when the test ends (the transcript)
// is labelled with the test's line that called Connect, not the harness's.
func TestTranscriptIsLabelledWithTheTestsLine(t *testing.T) {
	if os.Getenv("MCPTEST_LABEL_CHILD") == "1" {
		t.Skip("the child runs only TestChildFailsWithTranscript")
	}
	t.Parallel()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestChildFailsWithTranscript$")
	cmd.Env = append(os.Environ(), "MCPTEST_LABEL_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child test passed; want it to fail:\n%s", out)
	}
	if !regexp.MustCompile(`label_test\.go:18: mcptest: transcript of the connection`).Match(out) {
		t.Errorf("the transcript is not labelled with the line of Connect:\n%s", out)
	}
}
