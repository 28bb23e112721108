package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
)

// A run's summary line: "27 passed, 0 failed, 2 skipped in 0.1s".
var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed(, (\d+) skipped)? in [0-9.]+s$`)

// The README's first command: no server argument checks the Bookshop in
// process, and it passes.
func TestCheckBundled(t *testing.T) {
	r := mcptestkit(t, nil, "check")
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stdout, "Checking the bundled Bookshop example")
	for _, name := range []string{"handshake/2026-07-28", "handshake/2024-11-05", "tools/calls/get_author",
		"tools/invalid-arguments/get_author", "resources/unknown-uri", "prompts/get/recommend"} {
		assertLine(t, r.stdout, "PASS", name)
	}
	// go-sdk's limit, explained, as examples/bookshop/check_test.go does.
	assert.Regexp(t, `SKIP  malformed-frame \(go-sdk v1\.8\.0.*-32700`, r.stdout)
	m := summary.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, "no summary line in\n%s", r.stdout)
	assert.Equal(t, "0", m[2])
	// Not a terminal: no colour, no progress line.
	assert.NotContains(t, r.stdout+r.stderr, "\033[")
	assert.Empty(t, r.stderr)
}

// The check flags reach the engine: --run selects, --skip leaves out and
// says so, --fuzz-calls 0 makes no generated calls, -v shows the notes.
func TestCheckSelection(t *testing.T) {
	r := mcptestkit(t, nil, "check", "--run", "tools", "--skip", "tools/calls/books", "--fuzz-calls", "0", "-v")
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.NotContains(t, r.stdout, "handshake/")
	assert.NotContains(t, r.stdout, "resources/")
	assert.Contains(t, r.stdout, "SKIP  tools/calls/books_by_author (left out by --skip)\n")
	assert.Regexp(t, `(?m)^PASS  tools/invalid-arguments/get_author( \(.*\))?\n      rejected as:`, r.stdout)
	assert.NotContains(t, r.stdout, "24 call(s)")
}

// stdio: the go-sdk Bookshop as a subprocess passes; JSON output parses and
// counts add up.
func TestCheckStdio(t *testing.T) {
	bin := serverBinary(t)
	r := mcptestkit(t, nil, "check", "--format", "json", "--", bin)
	require.Equal(t, exitOK, r.code, "%s", r)
	rep := decodeReport(t, r.stdout)
	assert.Equal(t, bin, rep.Server)
	assert.Zero(t, rep.Failed)
	assert.Greater(t, rep.Passed, 20)
	assert.Equal(t, len(rep.Checks), rep.Passed+rep.Failed+rep.Skipped)
	assert.Equal(t, "pass", status(rep, "tools/calls/get_author"))
	// The stdio transport sends only JSON: the engine skips this one.
	assert.Equal(t, "skip", status(rep, "malformed-frame"))
}

// HTTP: the Bookshop behind go-sdk's streamable HTTP handler on 127.0.0.1,
// with a --header that every request carries.
func TestCheckHTTP(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return bookshop.New(slog.New(slog.DiscardHandler)) },
		&mcp.StreamableHTTPOptions{Stateless: true})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	junit := filepath.Join(t.TempDir(), "report.xml")
	r := mcptestkit(t, nil, "check", srv.URL, "--header", "X-Api-Key: sekrit", "--junit", junit)
	require.Equal(t, exitOK, r.code, "%s", r)
	assert.Contains(t, r.stdout, "Checking "+srv.URL+"\n")
	assertLine(t, r.stdout, "PASS", "tools/calls/get_author")
	require.NotNil(t, summary.FindStringSubmatch(r.stdout), r.stdout)

	mu.Lock()
	defer mu.Unlock()
	require.NotEmpty(t, seen)
	for _, v := range seen {
		require.Equal(t, "sekrit", v)
	}
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	cases := validateJUnit(t, string(data))
	assert.Empty(t, cases["tools/calls/get_author"].children)
}

// A broken server: exit status 1, and the failures are the right ones,
// with what was sent and the guard's installation in the detail; a missing
// description (a convention) warns.
func TestCheckBroken(t *testing.T) {
	bin := serverBinary(t)
	junit := filepath.Join(t.TempDir(), "report.xml")
	env := []string{"STDIOSERVER_BROKEN=1"}

	r := mcptestkit(t, env, "check", "--junit", junit, "--", bin)
	require.Equal(t, exitFail, r.code, "%s", r)
	assert.Contains(t, r.stdout, "WARN  tools/descriptions\n      tools without a description: [\"explode\"]")
	// and lint/descriptions/explode: its required parameter has no description;
	// and invalid-log-level: go-sdk takes a log level that does not exist.
	assert.Contains(t, r.stdout, "3 check(s) warned, counted as passed")
	assert.Regexp(t, `(?s)FAIL  tools/calls/explode\n      called tool "explode".*gosdk.Guard.*messages \(→ to the server, ← from it\):\n        → .*"name":"explode"`, r.stdout)
	assertLine(t, r.stdout, "PASS", "handshake/2025-11-25")
	assert.Contains(t, r.stdout, "SKIP  resources/list (the server does not declare the resources capability)")
	m := summary.FindStringSubmatch(r.stdout)
	require.NotNil(t, m, r.stdout)
	// tools/cancellation also fails when the cancelled call reaches the
	// handler before its cancellation does: the process dies then too.
	assert.Contains(t, []string{"1", "2"}, m[2], r.stdout)

	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	cases := validateJUnit(t, string(data))
	require.Len(t, cases["tools/calls/explode"].children, 1)
	fail := cases["tools/calls/explode"].children[0]
	assert.Equal(t, "failure", fail.name)
	assert.Equal(t, `called tool "explode" with arguments {"fuse":""}`, fail.attrs["message"])
	assert.Equal(t, "skipped", cases["malformed-frame"].children[0].name)

	r = mcptestkit(t, env, "check", "--format", "json", "--", bin)
	require.Equal(t, exitFail, r.code, "%s", r)
	rep := decodeReport(t, r.stdout)
	assert.Contains(t, []int{1, 2}, rep.Failed)
	assert.Equal(t, 3, rep.Warned)
	assert.Equal(t, "fail", status(rep, "tools/calls/explode"))
	assert.Equal(t, "warn", status(rep, "tools/descriptions"))
	assert.Equal(t, "warn", status(rep, "lint/descriptions/explode"))
	for _, c := range rep.Checks {
		if c.Status == "fail" {
			assert.Contains(t, []string{"tools/calls/explode", "tools/cancellation"}, c.Name, c.Detail)
			assert.NotEmpty(t, c.Detail, c.Name)
		}
		if c.Name == "tools/calls/explode" {
			assert.NotEmpty(t, c.Transcript)
		}
	}
}

// Nothing to connect to: exit status 2, a message naming the server, and
// reports that say so.
func TestCheckUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "http://" + ln.Addr().String() + "/mcp"
	require.NoError(t, ln.Close()) // nothing listens there now

	junit := filepath.Join(t.TempDir(), "report.xml")
	r := mcptestkit(t, nil, "check", url, "--format", "json", "--junit", junit)
	require.Equal(t, exitUsage, r.code, "%s", r)
	assert.Contains(t, r.stderr, "mcptestkit check: could not connect to "+url+": ")
	assert.Contains(t, r.stderr, "connection refused")
	rep := decodeReport(t, r.stdout)
	assert.Empty(t, rep.Checks)
	assert.Contains(t, rep.Error, "could not connect to "+url)
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	cases := validateJUnit(t, string(data))
	assert.Equal(t, "error", cases["connect"].children[0].name)

	missing := filepath.Join(t.TempDir(), "no-such-server")
	r = mcptestkit(t, nil, "check", "--", missing, "--stdio")
	require.Equal(t, exitUsage, r.code, "%s", r)
	assert.Contains(t, r.stderr, "could not connect to "+missing+" --stdio: ")
	assert.Contains(t, r.stderr, "no such file or directory")
	assert.NotContains(t, r.stdout, "passed")

	// A server that exits at once: its stderr is in the message.
	r = mcptestkit(t, nil, "check", "--", "sh", "-c", "echo 'config.toml: not found' >&2; exit 3")
	require.Equal(t, exitUsage, r.code, "%s", r)
	assert.Contains(t, r.stderr, "config.toml: not found")
}

func decodeReport(t *testing.T, stdout string) report {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var rep report
	require.NoError(t, dec.Decode(&rep), "stdout is not the JSON report:\n%s", stdout)
	require.False(t, dec.More(), "more than one JSON value on stdout:\n%s", stdout)
	return rep
}

func status(rep report, name string) string {
	for _, c := range rep.Checks {
		if c.Name == name {
			return c.Status
		}
	}
	return "(no check " + name + ")"
}

// assertLine asserts that out has the line of a check with this status (a
// slow check's line ends with its duration).
func assertLine(t *testing.T, out, status, name string) {
	t.Helper()
	assert.Regexp(t, `(?m)^`+status+`  `+regexp.QuoteMeta(name)+`( \([0-9.]+s\))?$`, out)
}

// Ctrl-C stops a run at once, the server with it: exit status 130, and the
// reports say it was interrupted.
func TestCheckInterrupted(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	junit := filepath.Join(t.TempDir(), "report.xml")
	// A server that reads and never answers: the handshake waits.
	cmd := exec.CommandContext(t.Context(), bin, "check", "--junit", junit, "--", "sh", "-c", "cat >/dev/null")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n') // the run has begun
	require.NoError(t, err)
	require.Equal(t, "Checking sh -c 'cat >/dev/null'\n", line)
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	_, _ = io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
	assert.Equal(t, 130, ee.ExitCode())
	assert.Contains(t, stderr.String(), "mcptestkit check: interrupted after 0 check(s): interrupt signal received")
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	cases := validateJUnit(t, string(data))
	assert.Contains(t, cases["interrupted"].children[0].attrs["message"], "interrupted after 0 check(s)")
}

// Ctrl-C in the middle of the tool calls stops the run at once, also while
// a check generates arguments: the calls it cut short are the run's, not
// failures of the server; exit status 130.
func TestCheckInterruptedCalls(t *testing.T) {
	bin, err := binary()
	require.NoError(t, err)
	for _, mode := range []string{"slow", "slowgen"} {
		t.Run(mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), runTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, bin, "check", "--run", "tools/calls", "--fuzz-calls", "1", "--", hostileServer(t))
			cmd.Env = append(os.Environ(), hostileEnv+"="+mode)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			out := bufio.NewReader(stdout)
			var before strings.Builder
			for !strings.Contains(before.String(), "tools/calls/") {
				line, err := out.ReadString('\n') // the first check's line: the run is in the calls
				require.NoError(t, err, "stdout so far:\n%s", before.String())
				before.WriteString(line)
			}
			require.NoError(t, cmd.Process.Signal(os.Interrupt))
			signalled := time.Now()
			after, _ := io.ReadAll(out)
			err = cmd.Wait()
			took := time.Since(signalled)

			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "stderr: %s", stderr.String())
			assert.Equal(t, 130, ee.ExitCode(), "stderr: %s", stderr.String())
			assert.Less(t, took, 3*time.Second, "a hang guard: the run stops at once")
			assert.Regexp(t, `^mcptestkit check: interrupted after \d+ check\(s\): interrupt signal received\n$`, stderr.String())
			all := before.String() + string(after)
			assert.NotRegexp(t, `(?m)^(FAIL|WARN)  `, all, "an interrupted call is not the server's failure")
			assert.NotContains(t, all, "interrupt", "an interrupted call is not the server's failure")
			assert.NotContains(t, string(after), "passed", "no summary for a run that did not finish")
		})
	}
}
