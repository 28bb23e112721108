package mcptest

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"
)

// buildDir holds the cmdserver link to the test binary (see
// cmdServerBuild). TestMain makes and removes it.
var buildDir string

func TestMain(m *testing.M) {
	if isCmdServer() {
		os.Exit(serveStdio())
	}
	dir, err := os.MkdirTemp("", "mcptest-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = dir
	noExitSleep()
	// regexp2's clock, which times the matches of the ECMA-262 patterns it
	// runs, stops by itself a second after the last match's timeout.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2.runClock"), goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

func flagLookup(name string) *flag.Flag { return flag.Lookup(name) }

// setFlag sets a command-line flag for one test and restores it afterwards.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	f := flag.Lookup(name)
	if f == nil {
		t.Fatalf("no flag %q", name)
	}
	old := f.Value.String()
	if err := flag.Set(name, value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = flag.Set(name, old) })
}
