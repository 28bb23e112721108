package surface

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

// Option configures [Run].
type Option func(*config)

type config struct {
	require bool
	exempt  []string
}

// Require makes Run fail the test binary when a tool, resource, template or
// prompt a server declares was never exercised by the tests (CheckServer's
// and Fuzz's calls do not count), listing them; exempt names items left
// out, by name or URI ("debug_dump"), or with their kind ("tool
// debug_dump").
func Require(exempt ...string) Option {
	return func(c *config) {
		c.require = true
		c.exempt = append(c.exempt, exempt...)
	}
}

// Run runs the tests with every connection of the harness recorded, as
// TestMain does:
//
//	func TestMain(m *testing.M) { os.Exit(surface.Run(m, surface.Require())) }
//
// Then it prints one line per server to standard output (what the tests
// exercised of what it declares), writes the report to the file [Env]
// names, if set, and with [Require] fails (returns 1) when something
// declared was never exercised. It returns m.Run's code otherwise.
//
// Require judges only a run of every test of the binary: with -run, -skip,
// -fuzz or -list (go test's flags) it says that it does not judge, since
// the tests left out may be those that exercise what would be missing.
func Run(m *testing.M, opts ...Option) int {
	var c config
	for _, o := range opts {
		o(&c)
	}
	recording.Store(true)
	code := m.Run()
	r := Snapshot()
	fmt.Println(r.Summary(Tests))
	if err := writeReport(r); err != nil {
		fmt.Fprintf(os.Stderr, "mcp surface: writing the report: %v\n", err)
		code = max(code, 1)
	}
	if c.require {
		if subset := selection(); subset != "" {
			fmt.Fprintf(os.Stderr, "mcp surface: %s ran a part of the tests: surface.Require judges only a run of them all\n", subset)
			return code
		}
	}
	if c.require {
		if missing := r.Missing(Tests, c.exempt...); len(missing) > 0 {
			fmt.Fprintf(os.Stderr, "mcp surface: the tests never exercised %d declared item(s):\n\t%s\n"+
				"(test them, or leave them out with surface.Require(names...))\n", len(missing), strings.Join(missing, "\n\t"))
			code = max(code, 1)
		}
	}
	return code
}

// selection names the test flag that selects a part of the tests, "" if
// none does.
func selection() string {
	for _, name := range []string{"test.run", "test.skip", "test.fuzz", "test.list"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return "-" + strings.TrimPrefix(name, "test.") + " " + f.Value.String()
		}
	}
	return ""
}
