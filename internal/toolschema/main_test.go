package toolschema_test

import (
	"testing"

	"go.uber.org/goleak"
)

// regexp2's clock, which times the matches of the patterns it runs, stops
// by itself a second after the last match's timeout.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"))
}
