package servercheck_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/internal/npx"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The official conformance suite and CheckServer judge the same server, and
// must agree: a scenario the suite passes has none of the checks the package
// documentation maps it to failing, and a scenario it fails has one of them
// failing or warning. The server is go-sdk's own conformance fixture (its
// conformance/everything-server, at the release this module requires), a
// real subprocess on 127.0.0.1: in a legacy session at 2025-11-25 and
// stateless at 2026-07-28. Then the same server with one defect planted by
// a proxy in front of it, which both must catch.

// conformanceSuite is the suite release the package documentation maps.
const conformanceSuite = "@modelcontextprotocol/conformance@0.2.0-alpha.12"

// disagreements are the scenarios on which the verdicts differ, and why;
// TestConformanceAgreement fails on any other, and on one listed here that
// agrees again (the list must stay true).
var disagreements = map[string]map[string]string{
	"stateful": {
		"prompts-get-with-args": missingPromptArgument,
	},
	"stateless": {
		"prompts-get-with-args": missingPromptArgument,
		"input-required-result-tampered-state": "CheckServer warns (tools/input-required/test_input_required_result_tampered_state): " +
			"go-sdk's fixture rejects a requestState that ends in the suite's own marker, \"-TAMPERED\", and accepts one " +
			"changed any other way; it protects nothing",
		"http-header-validation": "CheckServer warns (http/headers): go-sdk v1.8.0 compares a base64-encoded Mcp-Name " +
			"(=?base64?...?=, as a client sends a name that is not ASCII) undecoded and refuses it with -32020; the suite " +
			"sends no encoded name",
		"http-custom-header-server-validation": "CheckServer warns (tools/calls/test_x_mcp_header) that go-sdk answers -32020 " +
			"\"missing Mcp-Param-Region header\" to a call whose region is the empty string, for which the client sends the " +
			"header with an empty value as the specification's conversion gives it; the suite never sends an empty value",
	},
	"bookshop": {
		"resources-templates-read": "the suite reads its fixture's template (test://template/{id}/data), which the Bookshop has not",
		"resources-subscribe":      undeclared,
		"resources-unsubscribe":    undeclared,
		"completion-complete":      undeclared,
	},
}

// undeclared: the suite tests what the server never declared; the checks
// are gated on what it declares.
const undeclared = "the suite asks for a capability the Bookshop does not declare (resources.subscribe, completions) and " +
	"fails it; CheckServer checks what a server declares"

// missingPromptArgument: CheckServer is stricter, rightly.
const missingPromptArgument = "CheckServer warns (prompts/missing-argument) that go-sdk renders a prompt whose required " +
	"argument is missing instead of answering -32602, a SHOULD of server/prompts that the suite does not test"

func TestConformanceAgreement(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite (npm) against a server process")
	}
	npxPath := npx.Path(t, conformanceSuite)
	table := conformanceMap(t)
	bin := buildFixture(t)
	for _, mode := range []struct {
		name      string
		stateless bool
		version   string
	}{
		{"stateful", false, "2025-11-25"},
		{"stateless", true, "2026-07-28"},
		{"bookshop", false, "2025-11-25"},
	} {
		t.Run(mode.name, func(t *testing.T) {
			var u string
			if mode.name == "bookshop" {
				// The example, which has none of the fixture's tools: only
				// the scenarios that need none are compared.
				s := bookshop.New(slog.New(slog.DiscardHandler))
				srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
				t.Cleanup(func() {
					srv.Close()
					for ss := range s.Sessions() { // the suite ends no session it starts
						ss.Close()
					}
				})
				u = srv.URL + "/"
			} else {
				u = startFixture(t, bin, mode.stateless)
			}
			suite := runSuite(t, npxPath, u, mode.version)
			ours := runChecks(t, u)
			got := compare(table, suite, ours)
			want := disagreements[mode.name]
			for scenario, d := range got {
				if _, ok := want[scenario]; !ok {
					t.Errorf("%s: the suite and CheckServer disagree: %s", scenario, d)
				}
			}
			for scenario, why := range want {
				if _, ok := got[scenario]; !ok {
					t.Errorf("%s: listed as a disagreement (%s), but the verdicts agree now: take it off the list", scenario, why)
				}
			}
			t.Logf("%d scenarios compared, %d disagreements (listed)", len(suite), len(got))
		})
	}
}

// A defect planted in a correct server: both the suite (on its scenario)
// and CheckServer (on the mapped checks) must report it, and neither
// reports it without the defect (TestConformanceAgreement).
func TestConformancePlantedDefects(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the conformance suite (npm) against a server process")
	}
	npxPath := npx.Path(t, conformanceSuite)
	table := conformanceMap(t)
	bin := buildFixture(t)
	stateful := startFixture(t, bin, false)
	stateless := startFixture(t, bin, true)
	for _, d := range []struct {
		name     string
		target   string
		version  string
		scenario string
		plant    defect
	}{
		{"foreign-origin-served", stateless, "2026-07-28", "dns-rebinding-protection", defect{request: func(r *http.Request) {
			r.Header.Del("Origin") // the server never sees who asked
			r.Host = ""            // nor by which name
		}}},
		{"header-mismatch-served", stateless, "2026-07-28", "http-header-validation", defect{request: func(r *http.Request) {
			// The headers are made to agree with the body: the server never
			// sees a mismatch.
			body := reread(r)
			var m struct {
				Method string `json:"method"`
				Params struct {
					Name string `json:"name"`
					URI  string `json:"uri"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &m) == nil && m.Method != "" {
				r.Header.Set("Mcp-Method", m.Method)
				if n := m.Params.Name + m.Params.URI; n != "" {
					r.Header.Set("Mcp-Name", n)
				}
			}
		}}},
		{"param-headers-unchecked", stateless, "2026-07-28", "http-custom-header-server-validation", defect{request: func(r *http.Request) {
			// The fixture's one annotated argument is made to agree with
			// the body: the server never sees a mismatch.
			body := reread(r)
			var m struct {
				Params struct {
					Arguments map[string]any `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &m) != nil {
				return
			}
			if v, ok := m.Params.Arguments["region"].(string); ok && v != "" {
				r.Header.Set("Mcp-Param-Region", v)
			} else {
				r.Header.Del("Mcp-Param-Region")
			}
		}}},
		// tools/list answered as if it needed input.
		{"input-required-on-list", stateless, "2026-07-28", "input-required-result-unsupported-methods", defect{response: func(msg map[string]any) {
			if res, ok := msg["result"].(map[string]any); ok && res["tools"] != nil {
				res["resultType"] = "input_required"
				res["requestState"] = "more"
			}
		}}},
		// A retry whose inputResponses miss what was asked fails instead of
		// asking again.
		{"missing-input-fails", stateless, "2026-07-28", "input-required-result-missing-input-response", defect{intercept: func(w http.ResponseWriter, r *http.Request) bool {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					InputResponses map[string]any `json:"inputResponses"`
				} `json:"params"`
			}
			body := reread(r)
			if r.Method != http.MethodPost || json.Unmarshal(body, &m) != nil || len(m.Params.InputResponses) == 0 || !bytes.Contains(body, []byte("test_input_required_result_elicitation")) {
				return false
			}
			if _, ok := m.Params.InputResponses["user_name"]; ok {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"missing input"}}`, m.ID)
			return true
		}}},
		{"not-found-without-uri", stateless, "2026-07-28", "sep-2164-resource-not-found", defect{response: func(msg map[string]any) {
			if e, ok := msg["error"].(map[string]any); ok {
				delete(e, "data")
				e["message"] = "not found"
			}
		}}},
		// DELETE is answered 200 and the session lives on (mcp-go v1.2.1's
		// defect).
		{"session-survives-delete", stateful, "2025-11-25", "server-session-lifecycle", defect{intercept: func(w http.ResponseWriter, r *http.Request) bool {
			if r.Method != http.MethodDelete {
				return false
			}
			w.WriteHeader(http.StatusOK)
			return true
		}}},
		// A protocolVersion the server does not speak is echoed back.
		{"version-echoed", stateful, "2025-11-25", "server-initialize", defect{intercept: func(w http.ResponseWriter, r *http.Request) bool {
			m := peek(r)
			if m.Method != "initialize" || slices.Contains([]string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}, m.Params.ProtocolVersion) {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":%q,"capabilities":{},"serverInfo":{"name":"echo","version":"1"}}}`, m.ID, m.Params.ProtocolVersion)
			return true
		}, suiteMisses: "the suite asks only for versions that exist"}},
		// resources.subscribe is declared, and resources/subscribe is not
		// implemented.
		{"subscribe-unimplemented", stateful, "2025-11-25", "resources-subscribe", defect{intercept: func(w http.ResponseWriter, r *http.Request) bool {
			m := peek(r)
			if m.Method != "resources/subscribe" {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`, m.ID)
			return true
		}}},
		// A notification is answered 200 with a body instead of 202 and none.
		{"notification-answered", stateful, "2025-11-25", "server-session-lifecycle", defect{intercept: func(w http.ResponseWriter, r *http.Request) bool {
			if m := peek(r); !strings.HasPrefix(m.Method, "notifications/") || m.ID != nil {
				return false
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","result":{}}`)
			return true
		}, suiteMisses: "the suite accepts any 2xx for a notification"}},
		// A session id the server never gave out is served as the last one
		// it did, instead of 404. The suite sends none such.
		{"session-unknown-served", stateful, "2025-11-25", "server-session-lifecycle", defect{sessions: true,
			suiteMisses: "the suite sends no request with a session id the server never gave out"}},
		{"tools-without-schema", stateless, "2026-07-28", "tools-list", defect{response: func(msg map[string]any) {
			if res, ok := msg["result"].(map[string]any); ok {
				if tools, ok := res["tools"].([]any); ok {
					for _, tl := range tools {
						delete(tl.(map[string]any), "inputSchema")
					}
				}
			}
		}}},
	} {
		t.Run(d.name, func(t *testing.T) {
			u := d.plant.front(t, d.target)
			suite := runSuite(t, npxPath, u, d.version, d.scenario)
			v, ok := suite[d.scenario]
			require.True(t, ok, "the suite did not run %s", d.scenario)
			switch caught := v.status == "fail" || v.status == "warn"; {
			case !caught && d.plant.suiteMisses == "":
				t.Errorf("the suite passed %s with the defect planted", d.scenario)
			case caught && d.plant.suiteMisses != "":
				t.Errorf("the suite caught the defect on %s (%v), listed as one it misses (%s)", d.scenario, v.failed, d.plant.suiteMisses)
			}
			checks := table[d.scenario]
			require.NotEmpty(t, checks, "%s maps to no check", d.scenario)
			ours := runChecks(t, u)
			status, failing := verdict(d.scenario, checks, ours)
			if os.Getenv("DEBUG_DEFECT") != "" {
				for n, r := range ours {
					if r.Status != servercheck.Pass {
						t.Logf("%s: %s", n, cut(r.String()))
					}
				}
			}
			if status != "fail" && status != "warn" {
				t.Errorf("CheckServer passed %s (checks %s: %s) with the defect planted", d.scenario, strings.Join(checks, ", "), status)
			} else {
				t.Logf("the suite: %s; CheckServer: %s on %s", v.status, status, strings.Join(failing, ", "))
			}
		})
	}
}

// conformanceMap reads the scenario-to-checks table of the package
// documentation (mcptest/servercheck, "Conformance"), which is generated
// from the table the package keeps: what users read is what is tested.
func conformanceMap(t *testing.T) map[string][]string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "mcptest", "servercheck", "doc.go"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(src), "// # Conformance\n")
	require.True(t, ok, "no Conformance section in the package documentation")
	require.Contains(t, section[:400], strings.TrimPrefix(conformanceSuite, "@modelcontextprotocol/conformance@"),
		"the documented table maps another release of the suite than the one this test runs")
	checkName := regexp.MustCompile(`^[a-z0-9_./<>-]+$`)
	table := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		row, ok := strings.CutPrefix(line, "//\t")
		if !ok || row == "" || row[0] == ' ' {
			continue // prose, or a row's continued note
		}
		scenario, rest, _ := strings.Cut(row, " ")
		first, _, _ := strings.Cut(strings.TrimSpace(rest), ";")
		var checks []string
		for _, c := range strings.Split(first, ", ") {
			if !checkName.MatchString(c) {
				checks = nil // a note: no check covers it
				break
			}
			checks = append(checks, c)
		}
		table[scenario] = checks
	}
	require.Greater(t, len(table), 50, "the Conformance table was not read")
	return table
}

// buildFixture builds go-sdk's conformance server at the release this
// module requires.
func buildFixture(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "everything-server")
	out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server").CombinedOutput()
	require.NoError(t, err, "go build of go-sdk's conformance server: %s", out)
	return bin
}

// startFixture runs the server on a free port of 127.0.0.1 until the test
// ends, and returns its URL.
func startFixture(t *testing.T, bin string, stateless bool) string {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(bin, "-http", addr, fmt.Sprintf("-stateless=%v", stateless))
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitListening(t, addr)
	return "http://" + addr + "/"
}

// freeAddr returns a 127.0.0.1 address with a port nothing listened on a
// moment ago, for a server process to listen on.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	return l.Addr().String()
}

// scenarioVerdict is the suite's verdict on one scenario.
type scenarioVerdict struct {
	status string   // fail, warn, pass, or none (no check ran)
	failed []string // the ids of its failing and warning checks
}

// runSuite runs the suite's server scenarios (all of them for the version,
// or the ones named) against u and returns each scenario's verdict.
func runSuite(t *testing.T, npxPath, u, version string, scenarios ...string) map[string]scenarioVerdict {
	t.Helper()
	shim, err := filepath.Abs(filepath.Join("..", "..", "..", "conformance", "node20-compat.mjs"))
	require.NoError(t, err)
	out := t.TempDir()
	args := []string{"-y", conformanceSuite, "server", "--url", u, "--spec-version", version, "--suite", "all", "-o", out}
	if len(scenarios) == 1 {
		args = append(args, "--scenario", scenarios[0])
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npxPath, args...)
	// The shim gives the suite fs.globSync on Node 20 and keeps its
	// listeners on 127.0.0.1 (conformance/run.sh loads it too).
	cmd.Env = append(os.Environ(), "NODE_OPTIONS=--import "+shim, "CONFORMANCE_BIND_HOST=127.0.0.1")
	log, _ := cmd.CombinedOutput() // its exit status says only that some scenario failed
	dirs, err := os.ReadDir(out)
	require.NoError(t, err)
	require.NotEmpty(t, dirs, "the suite wrote no results; its output:\n%s", log)
	stamp := regexp.MustCompile(`-\d{4}-\d\d-\d\dT[\d-]+Z$`)
	verdicts := map[string]scenarioVerdict{}
	for _, d := range dirs {
		name := stamp.ReplaceAllString(strings.TrimPrefix(d.Name(), "server-"), "")
		data, err := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
		require.NoError(t, err)
		var checks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		require.NoError(t, json.Unmarshal(data, &checks), "%s/checks.json", d.Name())
		v := scenarioVerdict{status: "none"}
		for _, c := range checks {
			switch c.Status {
			case "FAILURE":
				v.status = "fail"
				v.failed = append(v.failed, c.ID)
			case "WARNING":
				if v.status != "fail" {
					v.status = "warn"
				}
				v.failed = append(v.failed, c.ID)
			case "SUCCESS":
				if v.status == "none" {
					v.status = "pass"
				}
			}
		}
		verdicts[name] = v
	}
	return verdicts
}

// runChecks runs CheckServer's engine against u over streamable HTTP.
func runChecks(t *testing.T, u string) map[string]servercheck.Result {
	t.Helper()
	results := map[string]servercheck.Result{}
	_ = servercheck.Run(t.Context(), url(u), &servercheck.Options{
		Calls:    4,
		OnResult: func(r servercheck.Result) { results[r.Name] = r },
	})
	require.NotEmpty(t, results, "no check ran")
	return results
}

// fixtureItems are the fixture's tool, resource or prompt that a scenario
// is about: of a family of checks ("tools/calls/<tool>"), only the one on
// that item speaks for the scenario.
var fixtureItems = map[string]string{
	"tools-call-simple-text":                       "test_simple_text",
	"tools-call-image":                             "test_image_content",
	"tools-call-audio":                             "test_audio_content",
	"tools-call-embedded-resource":                 "test_embedded_resource",
	"tools-call-mixed-content":                     "test_multiple_content_types",
	"tools-call-with-logging":                      "test_tool_with_logging",
	"tools-call-error":                             "test_error_handling",
	"tools-call-with-progress":                     "test_tool_with_progress",
	"json-schema-2020-12":                          "json_schema_2020_12_tool",
	"resources-read-text":                          "static-text",
	"resources-read-binary":                        "static-binary",
	"prompts-get-simple":                           "test_simple_prompt",
	"prompts-get-with-args":                        "test_prompt_with_arguments",
	"prompts-get-embedded-resource":                "test_prompt_with_embedded_resource",
	"prompts-get-with-image":                       "test_prompt_with_image",
	"http-custom-header-server-validation":         "test_x_mcp_header",
	"input-required-result-tampered-state":         "test_input_required_result_tampered_state",
	"input-required-result-missing-input-response": "test_input_required_result_elicitation",
}

// during finds the checks a messages finding names ("(during
// prompts/get/x)").
var during = regexp.MustCompile(`\(during ([^)\s]+)\)`)

// verdict sums up the results of the checks a scenario maps to: fail, warn,
// pass, or skip when none ran. A family's checks count on the scenario's
// fixture item alone, and a failing messages check only for what it found
// during the scenario's other checks (or outside any check).
func verdict(scenario string, checks []string, results map[string]servercheck.Result) (string, []string) {
	item := fixtureItems[scenario]
	mine := func(name string) bool {
		return slices.ContainsFunc(checks, func(c string) bool {
			if !covers(c, name) {
				return false
			}
			return item == "" || !strings.Contains(c, "<") || strings.HasSuffix(name, "/"+item)
		})
	}
	if item != "" && !slices.ContainsFunc(slices.Collect(maps.Keys(results)), func(name string) bool { return strings.HasSuffix(name, "/"+item) }) {
		return "skip", nil // the server has no such item: a fixture's scenario
	}
	status := "skip"
	var failing []string
	for name, r := range results {
		if !mine(name) {
			continue
		}
		if name == "messages" && r.Status != servercheck.Pass {
			found := during.FindAllStringSubmatch(r.Detail, -1)
			if len(found) > 0 && !slices.ContainsFunc(found, func(m []string) bool { return m[1] != "messages" && mine(m[1]) }) {
				continue // about a check that is not this scenario's
			}
		}
		switch r.Status {
		case servercheck.Fail:
			status = "fail"
			failing = append(failing, name)
		case servercheck.Warn:
			if status != "fail" {
				status = "warn"
			}
			failing = append(failing, name)
		case servercheck.Pass:
			if status == "skip" {
				status = "pass"
			}
		}
	}
	slices.Sort(failing)
	return status, failing
}

// covers reports whether the documented check c ("tools/calls/<tool>")
// names the check name.
func covers(c, name string) bool {
	if i := strings.Index(c, "<"); i >= 0 {
		return strings.HasPrefix(name, c[:i])
	}
	return c == name
}

// compare returns the scenarios on which the suite and the checks disagree,
// each with what each said. Scenarios no check covers, or whose checks did
// not run, or that the suite ran no check of, are not compared.
func compare(table map[string][]string, suite map[string]scenarioVerdict, results map[string]servercheck.Result) map[string]string {
	out := map[string]string{}
	for scenario, v := range suite {
		checks := table[scenario]
		ours, failing := verdict(scenario, checks, results)
		if len(checks) == 0 || ours == "skip" || v.status == "none" {
			continue
		}
		suiteBad := v.status == "fail" || v.status == "warn"
		oursBad := ours == "fail" || ours == "warn"
		if suiteBad != oursBad {
			out[scenario] = fmt.Sprintf("the suite: %s %v; CheckServer on %s: %s %v", v.status, v.failed, strings.Join(checks, ", "), ours, failing)
		}
	}
	return out
}

// defect is a proxy in front of a correct server that plants one defect:
// it changes each request, or each JSON-RPC message of each response, or
// serves every session id as the last one the server gave out, or answers
// some requests itself.
type defect struct {
	request   func(*http.Request)
	response  func(msg map[string]any)
	sessions  bool
	intercept func(http.ResponseWriter, *http.Request) bool // true: answered in the proxy
	// suiteMisses says why the suite does not catch it, when it does not.
	suiteMisses string
}

func (d defect) front(t *testing.T, target string) string {
	t.Helper()
	to, err := neturl.Parse(target)
	require.NoError(t, err)
	var mu sync.Mutex
	var session string
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.URL.Path = to.Path
			r.Out.Host = r.In.Host // the server judges the Host it was asked by (DNS rebinding)
			if d.request != nil {
				d.request(r.Out)
			}
			if d.sessions && r.Out.Header.Get("Mcp-Session-Id") != "" {
				mu.Lock()
				if session != "" {
					r.Out.Header.Set("Mcp-Session-Id", session)
				}
				mu.Unlock()
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			if id := resp.Header.Get("Mcp-Session-Id"); d.sessions && id != "" {
				mu.Lock()
				session = id
				mu.Unlock()
			}
			if d.response == nil || resp.Request.Method != http.MethodPost {
				return nil
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			body = rewriteMessages(body, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream"), d.response)
			resp.Body = io.NopCloser(bytes.NewReader(body))
			resp.ContentLength = int64(len(body))
			resp.Header.Del("Content-Length")
			return nil
		},
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0), // a client that hangs up mid-stream is no news
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.intercept == nil || !d.intercept(w, r) {
			p.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// peek reads the JSON-RPC message of a POST, leaving the body to be read
// again.
func peek(r *http.Request) (m struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string `json:"protocolVersion"`
	} `json:"params"`
}) {
	if r.Method == http.MethodPost {
		_ = json.Unmarshal(reread(r), &m)
	}
	return m
}

// reread reads a request's body, leaving it to be read again.
func reread(r *http.Request) []byte {
	if r.Body == nil {
		return nil
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body
}

// rewriteMessages applies change to every JSON-RPC message of a response
// body: the body itself, or each data line of an SSE stream.
func rewriteMessages(body []byte, sse bool, change func(map[string]any)) []byte {
	one := func(b []byte) []byte {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return b
		}
		change(m)
		out, err := json.Marshal(m)
		if err != nil {
			return b
		}
		return out
	}
	if !sse {
		return one(body)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if data, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			line = append([]byte("data: "), one(bytes.TrimSpace(data))...)
		}
		out.Write(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

func cut(s string) string { return s[:min(len(s), 600)] }
