// The tests of this package are mcptest's tests with real SDK servers: the
// adapters (gosdktest, mcpgotest), the SDKs' HTTP handlers and a go-sdk
// stdio server meeting the harness. mcptest's own tests, in the root
// module, use an SDK-free fake server instead.
package mcptest_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// buildDir holds the server program the tests build, once per test binary
// (see cmdServerBuild). TestMain makes and removes it.
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcptest-integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildDir = dir
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		os.RemoveAll(dir)
		os.Exit(code)
	}))
}

// cmdServerBuild builds testdata/cmdserver, a go-sdk stdio server, into
// buildDir, once per test binary: linking the go-sdk takes a few seconds.
var cmdServerBuild = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(buildDir, "cmdserver")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/cmdserver").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./testdata/cmdserver: %v\n%s", err, out)
	}
	return bin, nil
})

// cmdServer returns a command that runs testdata/cmdserver in mode (see its
// package doc).
func cmdServer(t testing.TB, mode string) *exec.Cmd {
	t.Helper()
	bin, err := cmdServerBuild()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "CMDSERVER_MODE="+mode)
	return cmd
}

// aloneEnv names, in a child process of the test binary, the test that
// child runs alone (see runAlone).
const aloneEnv = "MCPTEST_INTEGRATION_ALONE"

// runAlone reports whether t is running alone in a child process of the
// test binary. If not, it runs t's test there, fails t unless the child
// passed, and returns the child's output. A connection open beside others
// leaves its leak check's verdict to the process-wide census (see
// mcptest's leak check), which this package cannot tell to decide at once
// as mcptest's own tests do; in the child, one connection after the other,
// each connection's check decides when its test ends.
func runAlone(t *testing.T) (child bool, out string) {
	t.Helper()
	if os.Getenv(aloneEnv) == t.Name() {
		return true, ""
	}
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), aloneEnv+"="+t.Name())
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "the child test failed:\n%s", b)
	require.Contains(t, string(b), "--- PASS: "+t.Name()+" ", "the child ran the test")
	return false, string(b)
}

// runFake runs body against a fake test (internal/faketb) and returns it.
func runFake(t testing.TB, body func(tb testing.TB)) *faketb.TB {
	t.Helper()
	return faketb.Run(t, body)
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

// probeServer is a go-sdk server with an echo tool, plus whatever add puts
// on it.
func probeServer(add func(s *mcp.Server)) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "probe", Version: "v0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if add != nil {
		add(s)
	}
	return s
}

// boomTool adds a tool that panics.
func boomTool(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		explode()
		return nil, nil, nil
	})
}

func explode() { panic("kaboom") }

// echoes checks that c's echo tool answers.
func echoes(t testing.TB, c *client.Client, text string) {
	t.Helper()
	res, err := c.CallTool(t.Context(), "echo", map[string]any{"text": text})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, text)
}
