package servercheck_test

import (
	"context"
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// Issue 31: a server process over HTTP that a tool call kills is reported
// once, on the call it died in, as a death; the checks after it are
// skipped saying why, instead of each failing on a server that is gone.
// A real process on 127.0.0.1 (TestCheckServerHTTPServerDies in package
// mcptest fakes the death in process).
func TestCheckServerHTTPProcessDies(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "crashhttp")
	out, err := exec.Command("go", "build", "-o", bin, "./testdata/crashhttp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	addr := freeAddr(t)
	cmd := exec.Command(bin, addr)
	require.NoError(t, cmd.Start())
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	waitListening(t, addr)

	results := map[string]servercheck.Result{}
	var order []string
	err = servercheck.Run(t.Context(), url("http://"+addr+"/"), &servercheck.Options{Calls: 2, Skip: []string{"unknown-method"}, // go-sdk's stateful 400
		OnResult: func(r servercheck.Result) { results[r.Name] = r; order = append(order, r.Name) }})
	require.Error(t, err)
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		assert.Error(t, err, "the server process exited on its own")
	case <-time.After(time.Minute): // a deadline for an exit that has begun: generous, so load cannot reach it
		t.Fatal("the server process is still running a minute later: the tool did not crash it")
	}

	boom := results["tools/calls/boom"]
	assert.Equal(t, servercheck.Fail, boom.Status, "%s", boom)
	assert.Contains(t, boom.Detail, "called tool \"boom\"")
	assert.Contains(t, boom.Detail, "the server died on this call")
	assert.Contains(t, boom.Detail, "the server stopped answering during tools/calls/boom")
	t.Logf("%s", boom)
	i := slices.Index(order, "tools/calls/boom")
	require.GreaterOrEqual(t, i, 0)
	failed := 0
	for _, name := range order[i+1:] {
		r := results[name]
		if name == "shutdown" {
			continue
		}
		assert.Equal(t, servercheck.Skip, r.Status, "%s", r)
		assert.True(t, strings.HasPrefix(r.Detail, "not run: the server stopped answering during tools/calls/boom"), "%s", r)
	}
	for _, r := range results {
		if r.Status == servercheck.Fail {
			failed++
		}
	}
	assert.Equal(t, 1, failed, "one failure, the call the server died in: %v", order)
}

// waitListening waits until something listens on addr.
func waitListening(t *testing.T, addr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("nothing listens on %s: %v", addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
