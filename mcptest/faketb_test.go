package mcptest

import (
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/faketb"
)

// fakeTB is the module's fake test (internal/faketb) under the names this
// package's tests use.
type fakeTB struct{ *faketb.TB }

func runFake(t testing.TB, body func(tb testing.TB)) *fakeTB {
	t.Helper()
	return &fakeTB{faketb.Run(t, body)}
}

func (f *fakeTB) output() string { return f.Text() }

func (f *fakeTB) expectFailure(t *testing.T, contains ...string) {
	t.Helper()
	f.ExpectFailure(t, contains...)
}

func (f *fakeTB) expectPass(t *testing.T) {
	t.Helper()
	f.ExpectPass(t)
}
