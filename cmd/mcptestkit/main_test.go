package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// buildDir holds the binaries the tests build, once per test binary: the
// command itself, run as a user runs it, and the stdio server it checks.
// TestMain makes and removes it; these are the package's only globals.
var buildDir string

var (
	binary      = sync.OnceValues(func() (string, error) { return build("mcptestkit", ".") })
	stdioServer = sync.OnceValues(func() (string, error) { return build("stdioserver", "./testdata/stdioserver") })
	taskServer  = sync.OnceValues(func() (string, error) { return build("taskserver", "./testdata/taskserver") })
	runTimeout  = 2 * time.Minute // a hang guard for one run of the command, not a timing
)

func build(name, pkg string) (string, error) {
	bin := filepath.Join(buildDir, name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

func TestMain(m *testing.M) {
	if mode := os.Getenv(hostileEnv); mode != "" {
		os.Exit(serveHostile(mode)) // a test started this binary as its server
	}
	dir, err := os.MkdirTemp("", "mcptestkit-test-")
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

// result is one run of the command.
type result struct {
	code           int
	stdout, stderr string
}

// mcptestkit runs the built command with args (env adds to the
// environment) and returns what it printed and its exit status.
func mcptestkit(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return mcptestkitWithin(t, runTimeout, env, args...)
}

// mcptestkitWithin is mcptestkit with a hang guard of its own.
func mcptestkitWithin(t *testing.T, within time.Duration, env []string, args ...string) result {
	t.Helper()
	bin, err := binary()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("running mcptestkit %q: %v\nstderr:\n%s", args, err, stderr.String())
	}
	require.NoError(t, ctx.Err(), "mcptestkit %q did not finish within %v", args, within)
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

func (r result) String() string {
	return fmt.Sprintf("exit status %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

func serverBinary(t *testing.T) string {
	t.Helper()
	bin, err := stdioServer()
	require.NoError(t, err)
	return bin
}
