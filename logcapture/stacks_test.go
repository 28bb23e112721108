package logcapture

import (
	"log/slog"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// logCrash logs an ERROR record with the stack of the goroutine it runs on,
// from inside a deferred recover of f's panic, as a crash guard does.
func logCrash(l *slog.Logger, f func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			l.Error("handler panicked", "panic", recover(), StackKey, string(debug.Stack()))
		}()
		f()
	}()
	<-done
}

func crashOne() { panic("one") }

func crashTwo() { panic("two") }

// A handler that crashed three times the same way has its stack written
// once in the dump; the other two records say they have the same one. A
// different crash has its own.
func TestDumpWritesEachStackOnce(t *testing.T) {
	t.Parallel()
	r := New(t, NoDump())
	for _, f := range []func(){crashOne, crashOne, crashTwo, crashOne} {
		logCrash(r.Logger(), f)
	}
	dump := r.dump("", false)
	assert.Equal(t, 1, strings.Count(dump, "logcapture.crashOne("), dump)
	assert.Equal(t, 1, strings.Count(dump, "logcapture.crashTwo("), dump)
	assert.Equal(t, 2, strings.Count(dump, "[running]:"), dump)
	assert.Contains(t, dump, "    stack: the same as written above (record 2 with this stack)\nERROR handler panicked panic=two")
	assert.Contains(t, dump, "    stack: the same as written above (record 3 with this stack)")
	assert.Equal(t, r.String(), strings.TrimPrefix(dump, "------------------------------ Captured log ------------------------------\n")+"\n",
		"String lists the records as the dump does")
	assert.Contains(t, r.Records()[1].String(), "logcapture.crashOne(", "a record on its own has its stack")
}
