package logcapture_test

import (
	"bufio"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

// Issue 30.14: a failing assertion over many records prints a readable
// message (the matching records, at most 200 and 64 KiB of them) and names
// a file that holds every record.
func TestFailureOverManyRecordsIsBounded(t *testing.T) {
	t.Parallel()
	r := logcapture.New(t, logcapture.NoDump())
	const n = 100_000
	for i := range n {
		if i%1000 == 999 {
			r.Logger().Warn("disk almost full", "i", i)
			continue
		}
		r.Logger().Info("request served", "i", i)
	}
	r.Logger().Warn("huge", "v", strings.Repeat("x", 1<<20))

	var ft fakeT
	if r.AssertNone(&ft, logcapture.AtLeast(0)) || len(ft.errors) != 1 {
		t.Fatalf("AssertNone passed or failed %d times", len(ft.errors))
	}
	msg := ft.errors[0]
	if len(msg) > 70<<10 {
		t.Errorf("the failure is %d bytes; want at most about 64 KiB", len(msg))
	}
	m := regexp.MustCompile(`\((\d+) records, (\d+) of them shown, 64 KiB of text at most; all of them are in (\S+)\)$`).FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("the failure does not end by saying what was left out and where it is:\n...%s", msg[max(0, len(msg)-300):])
	}
	if m[1] != "100001" {
		t.Errorf("it counts %s records, want 100001", m[1])
	}
	f, err := os.Open(m[3])
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(m[3])
	defer f.Close()
	lines := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 2<<20)
	for sc.Scan() {
		lines++
	}
	if lines != n+1 {
		t.Errorf("the file has %d lines, want every record (%d)", lines, n+1)
	}

	// Fewer matches: only they are shown, marked.
	ft = fakeT{}
	r.AssertNone(&ft, logcapture.AtLeast(4)) // WARN
	if got := strings.Count(ft.errors[0], "\n> WARN  disk almost full"); got != 100 {
		t.Errorf("shows %d of the 100 WARN records; want all of them, and no other record", got)
	}
}
