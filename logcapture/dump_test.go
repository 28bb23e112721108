package logcapture

import (
	"fmt"
	"log/slog"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A dependency's routine records (here "logged" from testify's code) are
// summed up in one line of the failure dump; its warnings, the test's own
// module's records and everything under go test -v are printed in full.
func TestDumpLeavesOutDependencyChatter(t *testing.T) {
	t.Parallel()
	dep := reflect.ValueOf(assert.Equal).Pointer() + 1 // a PC inside github.com/stretchr/testify
	r := New(t, NoDump())
	r.add(Record{Level: slog.LevelInfo, Message: "server connecting", PC: dep})
	r.Logger().Info("tool returned an error", "tool", "get_author") // this module
	r.add(Record{Level: slog.LevelInfo, Message: "session initialized", PC: dep})
	r.add(Record{Level: slog.LevelWarn, Message: "slow session", PC: dep})

	// The line of assert.Equal in whichever testify release is linked.
	depFrame, _ := runtime.CallersFrames([]uintptr{dep}).Next()
	got := r.dump("github.com/mcptestkit/mcptestkit", false)
	want := fmt.Sprintf(`------------------------------ Captured log ------------------------------
INFO  tool returned an error tool=get_author (dump_test.go:22)
WARN  slow session (assertions.go:%d)
(2 records below WARN from github.com/stretchr/testify left out: "server connecting", "session initialized"; go test -v prints them)`, depFrame.Line)
	assert.Equal(t, want, got)

	all := r.dump("github.com/mcptestkit/mcptestkit", true)
	assert.Equal(t, 4, strings.Count(all, "\n"), all)
	assert.Contains(t, all, "INFO  server connecting")
	assert.Equal(t, all, r.dump("", false), "an unknown module leaves nothing out")
}
