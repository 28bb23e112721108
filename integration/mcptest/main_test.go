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
