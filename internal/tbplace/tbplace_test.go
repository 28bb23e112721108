package tbplace

import (
	"testing"
	"testing/synctest"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type notT struct{ testing.TB }

func TestInBubble(t *testing.T) {
	if InBubble(t) {
		t.Error("InBubble outside synctest.Test")
	}
	synctest.Test(t, func(t *testing.T) {
		if !InBubble(t) {
			t.Error("not InBubble inside synctest.Test")
		}
	})
	if InBubble(struct{}{}) {
		t.Error("InBubble of a value with no Deadline method")
	}
}

// A t that is not a *testing.T gets the zero Place: its reports are its own.
func TestCallerOfAFake(t *testing.T) {
	if (Caller(notT{t}, "x.go") != Place{}) {
		t.Error("a fake's Place is not the zero Place")
	}
	if (Place{}).Report(true, "lost") {
		t.Error("the zero Place reported")
	}
	if p := Caller(t, "elsewhere/x.go"); p.at == "" || p.at[:len("tbplace_test.go:")] != "tbplace_test.go:" {
		t.Errorf("Caller names %q, want this file's line", p.at)
	}
}
