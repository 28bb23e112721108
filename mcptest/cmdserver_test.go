package mcptest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// The tests of Command servers start a stdio server: this
// test binary, run through a link named cmdserver, which TestMain
// recognises (no server program to build, and no SDK). It serves
// cmdserverFake, whose tools answer, hang and crash. CMDSERVER_MODE picks
// how it behaves around the session:
//
//	(unset)       serve until stdin closes, then exit 0
//	exit          write two lines on stderr and exit 3 before reading anything
//	linger        serve, then keep running after stdin closed (ignores SIGTERM)
//	fail-on-exit  serve, then exit 1 after stdin closed
//	probe         serve probeServer (its echo tool only) instead
const cmdServerName = "cmdserver"

// isCmdServer reports whether this process is the cmdserver program.
func isCmdServer() bool {
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") == cmdServerName
}

// noExitSleep keeps the race detector from sleeping a second as a process
// of this binary exits (GORACE's atexit_sleep_ms): the cmdserver program is
// this binary, built with -race when the tests are, and a session would
// last a second longer. TestMain sets it for the processes it starts.
func noExitSleep() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		_ = os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
}

// cmdServerBuild links the test binary as buildDir/cmdserver, once.
var cmdServerBuild = sync.OnceValues(func() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(buildDir, cmdServerName)
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if err := os.Link(exe, bin); err != nil {
		if err := os.Symlink(exe, bin); err != nil {
			return "", fmt.Errorf("linking the test binary as %s: %v", bin, err)
		}
	}
	return bin, nil
})

// cmdServer returns a command that runs the cmdserver program in mode.
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

// cmdserverFake is the server the cmdserver program serves; its tools say
// what they do on stderr.
func cmdserverFake(stderr io.Writer) *fakeServer {
	echo := echoTool()
	echo.handle = func(_ context.Context, c *fakeCall) (*fakeResult, error) {
		fmt.Fprintf(stderr, "cmdserver: echo %q\n", c.str("text"))
		return fakeText(c.str("text")), nil
	}
	return &fakeServer{name: cmdServerName, version: "1.0.0", tools: []*fakeTool{
		echo,
		{name: "hang", description: "Answer only when cancelled.", handle: func(ctx context.Context, _ *fakeCall) (*fakeResult, error) {
			fmt.Fprintln(stderr, "cmdserver: hang: waiting for cancellation")
			<-ctx.Done()
			return nil, ctx.Err()
		}},
		{name: "big", description: "Answer with 1 MB of text.", handle: func(context.Context, *fakeCall) (*fakeResult, error) {
			return fakeText(strings.Repeat("a", 1<<20)), nil
		}},
		{name: "crash", description: "Exit with status 3 in the middle of a call.", handle: func(context.Context, *fakeCall) (*fakeResult, error) {
			fmt.Fprintln(stderr, "cmdserver: crash: the database handle is gone")
			os.Exit(3)
			return nil, nil
		}},
	}}
}

// serveStdio is the cmdserver program: it serves cmdserverFake on stdin and
// stdout, newline-delimited, and returns the exit status.
func serveStdio() int {
	mode := os.Getenv("CMDSERVER_MODE")
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "cmdserver: loading config")
		fmt.Fprintln(os.Stderr, "cmdserver: fatal: no such file /nonexistent/cmdserver.toml")
		return 3
	case "linger":
		signal.Ignore(syscall.SIGTERM)
	}
	served, written := make(chan error, 1), make(chan error, 1)
	fake := cmdserverFake(os.Stderr)
	if mode == "probe" {
		fake = probeServer()
	}
	cli, srv := memtransport.Pair()
	go func() { served <- fake.Serve(context.Background(), srv) }()
	go func() { _, err := io.Copy(os.Stdout, cli.Stream()); written <- err }()
	_, err := io.Copy(cli.Stream(), os.Stdin)
	_ = cli.Stream().Close()
	<-served
	<-written
	fmt.Fprintf(os.Stderr, "cmdserver: stdin closed (%v)\n", err)
	switch mode {
	case "linger":
		for {
			time.Sleep(time.Hour) // until SIGKILL
		}
	case "fail-on-exit":
		return 1
	}
	return 0
}
