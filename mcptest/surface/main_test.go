package surface_test

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

// childEnv makes the test binary a child of TestRequireFailsTheBinary: it
// runs its tests through Run with Require.
const childEnv = "SURFACE_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(surface.Run(m, surface.Require("exempt_tool")))
	}
	code := surface.Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}
