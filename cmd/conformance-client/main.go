package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/oauth"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

const (
	// deadline bounds a whole scenario; the suite's own timeout is 30 s.
	deadline = 10 * time.Second
	// metadataDocumentURL is this client's SEP-991 client ID metadata
	// document URL: the one the suite's basic-cimd scenario expects. Its
	// mock authorization server does not fetch it.
	metadataDocumentURL = "https://conformance-test.local/client-metadata.json"
	// redirectURL is the OAuth redirect URI. Nothing listens there: the
	// suite's mock approves at once and the redirect is read, not followed.
	redirectURL = "http://localhost:3000/callback"
)

// scenarioContext is MCP_CONFORMANCE_CONTEXT: the fields any scenario sends.
type scenarioContext struct {
	Name             string `json:"name"`
	ClientID         string `json:"client_id"`
	ClientSecret     string `json:"client_secret"`
	PrivateKeyPEM    string `json:"private_key_pem"`
	SigningAlgorithm string `json:"signing_algorithm"`
	IdPClientID      string `json:"idp_client_id"`
	IdPIDToken       string `json:"idp_id_token"`
	IdPIssuer        string `json:"idp_issuer"`
	IdPTokenEndpoint string `json:"idp_token_endpoint"`
	ValidJWT         string `json:"valid_jwt"`
	// ToolCalls are the calls a scenario asks for, with their arguments.
	ToolCalls []struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"toolCalls"`
}

// env is what a scenario runs with.
type env struct {
	scenario string
	url      string
	data     scenarioContext
	log      *slog.Logger
	// base carries every HTTP request of the run (traced to the log).
	base http.RoundTripper
}

// scenarios maps the non-auth scenario names to their runs; every "auth/"
// scenario runs [authorized].
var scenarios = map[string]func(context.Context, *env) error{
	"initialize":                          listTools,
	"tools_call":                          toolsCall,
	"elicitation-sep1034-client-defaults": elicitationDefaults,
	"sse-retry":                           sseRetry,
	// The 2026-07-28 scenarios watch what the client sends while it uses a
	// server (headers, _meta, input responses): the client uses all of it.
	"request-metadata":                   exercise,
	"sep-2322-client-request-state":      exercise,
	"http-standard-headers":              exercise,
	"http-custom-headers":                exercise,
	"http-invalid-tool-headers":          exercise,
	"json-schema-ref-no-deref":           exercise,
	"json-schema-2020-12-preservation":   echoSchema,
	"sep-2640-client-no-prefetch":        skills,
	"sep-2640-client-verify-digest":      skills,
	"sep-2640-client-verify-size":        skills,
	"sep-2640-client-verify-frontmatter": skills,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the program; it returns the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) int {
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: conformance-client <server-url>  (scenario in MCP_CONFORMANCE_SCENARIO)")
		return 2
	}
	hc := &http.Transport{}
	defer hc.CloseIdleConnections()
	e := &env{scenario: getenv("MCP_CONFORMANCE_SCENARIO"), url: args[len(args)-1], log: log, base: &tracer{next: hc, log: log}}
	if raw := getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &e.data); err != nil {
			fmt.Fprintf(stderr, "conformance-client: MCP_CONFORMANCE_CONTEXT is not valid JSON: %v\n", err)
			return 1
		}
	}
	fn, ok := scenarios[e.scenario]
	if !ok && strings.HasPrefix(e.scenario, "auth/") {
		fn, ok = authorized, true
	}
	if !ok {
		fmt.Fprintf(stderr, "conformance-client: unknown scenario %q (MCP_CONFORMANCE_SCENARIO)\n", e.scenario)
		return 1
	}
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	start := time.Now()
	if err := fn(ctx, e); err != nil {
		fmt.Fprintf(stderr, "conformance-client: %s: %v\n", e.scenario, err)
		return 1
	}
	log.Info("scenario done", "scenario", e.scenario, "elapsed", time.Since(start))
	return 0
}

// connect opens a client session to the scenario's server over streamable
// HTTP with hc (nil: a plain client) and calls use(c), then closes.
func connect(ctx context.Context, e *env, hc *http.Client, opts *client.Options, use func(*client.Client) error) error {
	if hc == nil {
		hc = &http.Client{Transport: e.base}
	}
	if opts == nil {
		opts = &client.Options{}
	}
	opts.ClientInfo = client.Implementation{Name: "mcptestkit-conformance-client", Version: "1.0.0"}
	opts.Logger = e.log
	t := transport.HTTP(e.url, transport.WithHTTPClient(hc), transport.WithLogger(e.log))
	c, err := client.Connect(ctx, t, opts)
	if err != nil {
		t.Close()
		return fmt.Errorf("connect: %w", err)
	}
	e.log.Info("connected", "protocolVersion", c.ProtocolVersion(), "server", c.ServerInfo().Name)
	err = use(c)
	return errors.Join(err, c.Close())
}

// listTools is the initialize scenario: a session and one request.
func listTools(ctx context.Context, e *env) error {
	return connect(ctx, e, nil, nil, func(c *client.Client) error {
		_, err := c.ListTools(ctx, "")
		return err
	})
}

// callTool lists the tools, checks name is among them, calls it with args
// and fails on a tool error.
func callTool(ctx context.Context, c *client.Client, name string, args any) (*client.CallToolResult, error) {
	tools, err := c.ListTools(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	found := false
	for _, t := range tools.Tools {
		found = found || t.Name == name
	}
	if !found {
		return nil, fmt.Errorf("tools/list has no tool %q", name)
	}
	res, err := c.CallTool(ctx, name, args)
	if err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	if err := res.ToolError(); err != nil {
		return nil, fmt.Errorf("tools/call %s: %w", name, err)
	}
	return res, nil
}

func toolsCall(ctx context.Context, e *env) error {
	return connect(ctx, e, nil, nil, func(c *client.Client) error {
		res, err := callTool(ctx, c, "add_numbers", map[string]any{"a": 5, "b": 3})
		if err == nil && !strings.Contains(res.Text(), "8") {
			err = fmt.Errorf("add_numbers(5, 3) answered %q", res.Text())
		}
		return err
	})
}

// elicitationDefaults accepts the server's form as a user would who
// submits it unchanged: every field the schema gives a default is filled
// with it (SEP-1034).
func elicitationDefaults(ctx context.Context, e *env) error {
	opts := &client.Options{
		Elicit: func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
			content, err := schemaDefaults(req.RequestedSchema)
			if err != nil {
				return nil, err
			}
			return &client.ElicitResult{Action: client.ElicitAccept, Content: content}, nil
		},
	}
	return connect(ctx, e, nil, opts, func(c *client.Client) error {
		_, err := callTool(ctx, c, "test_client_elicitation_defaults", map[string]any{})
		return err
	})
}

// schemaDefaults returns the default of every property of a flat
// elicitation schema that declares one.
func schemaDefaults(schema json.RawMessage) (map[string]any, error) {
	var s struct {
		Properties map[string]struct {
			Default any `json:"default"`
		} `json:"properties"`
	}
	if len(schema) > 0 {
		if err := json.Unmarshal(schema, &s); err != nil {
			return nil, fmt.Errorf("elicitation requestedSchema: %w", err)
		}
	}
	out := map[string]any{}
	for name, p := range s.Properties {
		if p.Default != nil {
			out[name] = p.Default
		}
	}
	return out, nil
}

// sseRetry calls the tool whose SSE response stream the server closes
// before the result: the transport must resume it (SEP-1699).
func sseRetry(ctx context.Context, e *env) error {
	return connect(ctx, e, nil, nil, func(c *client.Client) error {
		_, err := callTool(ctx, c, "test_reconnection", map[string]any{})
		return err
	})
}

// authorized runs every auth/ scenario: the grant and client identity come
// from the scenario (its context data), then an authorized session lists
// and calls the server's tool.
func authorized(ctx context.Context, e *env) error {
	cfg := oauth.Config{
		Base:       e.base,
		ClientName: "mcptestkit-conformance-client",
		ClientID:   e.data.ClientID, ClientSecret: e.data.ClientSecret,
	}
	switch e.scenario {
	case "auth/client-credentials-jwt":
		if e.data.SigningAlgorithm != "" && e.data.SigningAlgorithm != "ES256" {
			return fmt.Errorf("signing_algorithm %q: only ES256 keys are expected here", e.data.SigningAlgorithm)
		}
		key, err := oauth.ParsePrivateKey([]byte(e.data.PrivateKeyPEM))
		if err != nil {
			return err
		}
		cfg.Grant, cfg.PrivateKey = &oauth.ClientCredentials{}, key
	case "auth/client-credentials-basic":
		cfg.Grant = &oauth.ClientCredentials{}
	case "auth/wif-jwt-bearer":
		jwt := e.data.ValidJWT
		cfg.Grant = &oauth.JWTBearer{Assertion: func(context.Context) (string, error) { return jwt, nil }}
	case "auth/cross-app-access-complete-flow", "auth/enterprise-managed-authorization":
		idToken := e.data.IdPIDToken
		cfg.Grant = &oauth.IdentityAssertion{
			IdPTokenURL: e.data.IdPTokenEndpoint,
			IdPClientID: e.data.IdPClientID,
			IDToken:     func(context.Context) (string, error) { return idToken, nil },
		}
	default:
		if e.scenario == "auth/dpop" || e.scenario == "auth/dpop-nonce" {
			key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
			if err != nil {
				return err
			}
			cfg.DPoPKey = key
		}
		cfg.ClientMetadataURL = metadataDocumentURL
		cfg.Grant = &oauth.AuthorizationCode{
			RedirectURL: redirectURL,
			Authorize:   oauth.AutoApprove(&http.Client{Transport: e.base}),
		}
	}
	tr, err := oauth.New(cfg)
	if err != nil {
		return err
	}
	return connect(ctx, e, tr.Client(), nil, func(c *client.Client) error {
		_, err := callTool(ctx, c, "test-tool", map[string]any{})
		return err
	})
}

// answering are the callbacks of a client that answers every input request
// the way a user who agrees would: elicitation accepted with the form's
// defaults, a sampled message, no roots.
func answering() *client.Options {
	return &client.Options{
		Elicit: func(_ context.Context, req *client.ElicitRequest) (*client.ElicitResult, error) {
			content, err := schemaDefaults(req.RequestedSchema)
			if err != nil {
				return nil, err
			}
			return &client.ElicitResult{Action: client.ElicitAccept, Content: content}, nil
		},
		CreateMessage: func(context.Context, *client.CreateMessageRequest) (*client.CreateMessageResult, error) {
			return &client.CreateMessageResult{Role: "assistant", Content: []client.Content{&client.TextContent{Text: "ok"}}, Model: "conformance", StopReason: "endTurn"}, nil
		},
		ListRoots: func(context.Context) ([]*client.Root, error) { return []*client.Root{}, nil },
	}
}

// exercise uses everything the server offers through the library: it lists
// the tools and calls the scenario's calls (or every tool, with no
// arguments), reads every resource and gets every prompt. A tool or
// resource that fails is logged, not fatal: the scenarios judge what the
// client sent, and some serve tools built to be refused.
func exercise(ctx context.Context, e *env) error {
	return connect(ctx, e, nil, answering(), func(c *client.Client) error {
		var tools []*client.Tool
		for t, err := range c.Tools(ctx) {
			if err != nil {
				return err
			}
			tools = append(tools, t)
		}
		calls := e.data.ToolCalls
		if len(calls) == 0 {
			for _, t := range tools {
				calls = append(calls, struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				}{Name: t.Name})
			}
		}
		for _, call := range calls {
			if _, err := c.CallTool(ctx, call.Name, call.Arguments); err != nil {
				e.log.Info("tool call failed", "tool", call.Name, "err", err)
			}
		}
		caps := c.ServerCapabilities()
		if caps != nil && caps.Resources != nil {
			for r, err := range c.Resources(ctx) {
				if err != nil {
					break
				}
				if _, err := c.ReadResource(ctx, r.URI); err != nil {
					e.log.Info("resource read failed", "uri", r.URI, "err", err)
				}
			}
		}
		if caps != nil && caps.Prompts != nil {
			for p, err := range c.Prompts(ctx) {
				if err != nil {
					break
				}
				if _, err := c.GetPrompt(ctx, p.Name, nil); err != nil {
					e.log.Info("prompt get failed", "prompt", p.Name, "err", err)
				}
			}
		}
		return nil
	})
}

// echoSchema hands a tool's inputSchema back to the server exactly as the
// client received it (Tool.InputSchema keeps the raw JSON: SEP-1613).
func echoSchema(ctx context.Context, e *env) error {
	return connect(ctx, e, nil, nil, func(c *client.Client) error {
		var focal *client.Tool
		for t, err := range c.Tools(ctx) {
			if err != nil {
				return err
			}
			if t.Name == "json_schema_2020_12_tool" {
				focal = t
			}
		}
		if focal == nil {
			return errors.New("tools/list has no json_schema_2020_12_tool")
		}
		_, err := callTool(ctx, c, "json_schema_echo", map[string]any{"schema": focal.InputSchema})
		return err
	})
}

// skills lists the server's skills and loads each: the library reads
// nothing on listing, and refuses a skill whose files do not match their
// entry (a verification failure is what the tampered scenarios expect, so
// it is logged, not returned). The no-prefetch scenario watches that
// listing alone reads nothing, so there it loads none.
func skills(ctx context.Context, e *env) error {
	return connect(ctx, e, nil, nil, func(c *client.Client) error {
		list, err := c.ListSkills(ctx)
		if err != nil || e.scenario == "sep-2640-client-no-prefetch" {
			return err
		}
		for _, s := range list {
			if _, err := c.LoadSkill(ctx, s); err != nil {
				if !errors.Is(err, client.ErrSkillVerification) {
					return err
				}
				e.log.Info("skill refused", "skill", s.URI, "err", err)
			}
		}
		return nil
	})
}
