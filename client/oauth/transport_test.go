package oauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/client/oauth"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const redirectURL = "http://127.0.0.1:7777/callback"

// base returns a RoundTripper of the test's own, so no idle connection
// outlives it.
func base(t testing.TB) *http.Transport {
	b := &http.Transport{}
	t.Cleanup(b.CloseIdleConnections)
	return b
}

// authCode is the authorization code grant with the auto-approving
// front channel, over rt.
func authCode(rt http.RoundTripper) *oauth.AuthorizationCode {
	return &oauth.AuthorizationCode{RedirectURL: redirectURL, Authorize: oauth.AutoApprove(&http.Client{Transport: rt})}
}

// setup starts an authorization server and an MCP server that trusts it.
func setup(t testing.TB, asCfg func(*authServer), mcpCfg func(*mcpServer)) (*authServer, *mcpServer) {
	as := newAuthServer(t, asCfg)
	m := newMCPServer(t, as.scopesOf, as.URL, mcpCfg)
	return as, m
}

// newTransport builds a Transport over its own base RoundTripper; a nil
// Grant means the auto-approved authorization code grant.
func newTransport(t testing.TB, cfg oauth.Config) (*oauth.Transport, *http.Client) {
	t.Helper()
	b := base(t)
	cfg.Base = b
	if cfg.Grant == nil {
		cfg.Grant = authCode(b)
	}
	tr, err := oauth.New(cfg)
	require.NoError(t, err)
	return tr, tr.Client()
}

// call POSTs a JSON-RPC request for method and returns the status and body.
func call(t testing.TB, c *http.Client, u, method string) (int, string, error) {
	t.Helper()
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":%q}`, method)
	// A body without GetBody, as a streaming transport would send, so the
	// Transport has to buffer it to replay it after authorizing.
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, io.NopCloser(strings.NewReader(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(b), nil
}

func mustCall(t testing.TB, c *http.Client, u, method string) string {
	t.Helper()
	status, body, err := call(t, c, u, method)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status, body)
	return body
}

func TestAuthorizationCodeWithDynamicRegistration(t *testing.T) {
	as, m := setup(t, func(a *authServer) { a.expiresIn = 3600 }, nil)
	tr, c := newTransport(t, oauth.Config{ClientName: "demo"})

	body := mustCall(t, c, m.URL(), "tools/list")
	assert.Contains(t, body, `\"method\":\"tools/list\"`, "the retried request carries the original body")
	mustCall(t, c, m.URL(), "tools/call")

	_, auths, tokens, regs := as.snapshot()
	require.Len(t, regs, 1)
	assert.Equal(t, "demo", regs[0]["client_name"])
	assert.Equal(t, []any{redirectURL}, regs[0]["redirect_uris"])
	assert.Equal(t, []any{"authorization_code", "refresh_token"}, regs[0]["grant_types"])
	assert.Equal(t, "none", regs[0]["token_endpoint_auth_method"], "the server supports public clients")
	assert.Equal(t, "native", regs[0]["application_type"], "loopback redirect")

	require.Len(t, auths, 1, "the second request reuses the token")
	assert.Equal(t, "client-1", auths[0].Get("client_id"))
	assert.Equal(t, m.URL(), auths[0].Get("resource"), "RFC 8707 resource names the MCP server")
	assert.False(t, auths[0].Has("scope"), "nothing defines a scope, so none is requested")
	assert.NotEmpty(t, auths[0].Get("state"))

	require.Len(t, tokens, 1)
	assert.Equal(t, m.URL(), tokens[0].Get("resource"))
	assert.Equal(t, redirectURL, tokens[0].Get("redirect_uri"))

	seen := m.seen()
	require.Len(t, seen, 3, "tools/list refused, tools/list with token, tools/call with token")
	assert.Empty(t, seen[0].authorization)
	tok, ok := tr.Token()
	require.True(t, ok)
	assert.Equal(t, "Bearer "+tok.AccessToken, seen[1].authorization)
	assert.Equal(t, seen[0].body, seen[1].body)
	assert.WithinDuration(t, time.Now().Add(time.Hour), tok.Expiry, time.Minute)
}

func TestResourceMetadataDiscoveryOrder(t *testing.T) {
	for _, tc := range []struct {
		name     string
		prmPath  string
		inHeader bool
		want     []string // well-known paths asked at the MCP server, in order
	}{
		{"advertised in the challenge", "/custom/metadata.json", true, []string{"/custom/metadata.json"}},
		{"path-aware well-known", "/.well-known/oauth-protected-resource/mcp", false, []string{"/.well-known/oauth-protected-resource/mcp"}},
		{"root well-known", "/.well-known/oauth-protected-resource", false,
			[]string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var paths []string
			var mu sync.Mutex
			_, m := setup(t, nil, func(m *mcpServer) { m.prmPath, m.prmInHeader = tc.prmPath, tc.inHeader })
			_, c := newTransport(t, oauth.Config{})
			rec := m.srv.Config.Handler
			m.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					mu.Lock()
					paths = append(paths, r.URL.Path)
					mu.Unlock()
				}
				rec.ServeHTTP(w, r)
			})
			mustCall(t, c, m.URL(), "tools/list")
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tc.want, paths)
		})
	}
}

func TestServerMetadataDiscovery(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix string
		oidc   bool
		want   []string // paths asked at the authorization server before /authorize
	}{
		{"RFC 8414 at the root", "", false, []string{"/.well-known/oauth-authorization-server"}},
		{"OpenID configuration at the root", "", true,
			[]string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}},
		{"RFC 8414 with a tenant path", "/tenant1", false, []string{"/.well-known/oauth-authorization-server/tenant1"}},
		{"OpenID path-appended with a tenant path", "/tenant1", true, []string{
			"/.well-known/oauth-authorization-server/tenant1",
			"/.well-known/openid-configuration/tenant1",
			"/tenant1/.well-known/openid-configuration",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as, m := setup(t, func(a *authServer) { a.prefix, a.oidc = tc.prefix, tc.oidc }, nil)
			_, c := newTransport(t, oauth.Config{})
			mustCall(t, c, m.URL(), "tools/list")
			paths, _, _, _ := as.snapshot()
			i := 0
			for i < len(paths) && !strings.HasSuffix(paths[i], "/register") {
				i++
			}
			assert.Equal(t, tc.want, paths[:i])
		})
	}
}

func TestRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		asCfg   func(*authServer)
		mcpCfg  func(*mcpServer)
		wantErr error
		wantMsg string
	}{
		{name: "resource mismatch", mcpCfg: func(m *mcpServer) { m.resourceOverride = "https://evil.example.com/mcp" },
			wantErr: oauth.ErrResourceMismatch},
		{name: "metadata issuer mismatch", asCfg: func(a *authServer) { a.issuer = "http://127.0.0.1:1/other" },
			wantErr: oauth.ErrIssuerMismatch},
		{name: "no PKCE S256", asCfg: func(a *authServer) { a.noPKCE = true }, wantMsg: "refusing to authorize without PKCE"},
		{name: "state mismatch", asCfg: func(a *authServer) { a.stateOverride = "forged" }, wantMsg: "state"},
		{name: "iss mismatch", asCfg: func(a *authServer) { a.issParam = "https://attacker.example" }, wantErr: oauth.ErrIssuerMismatch},
		{name: "iss with a trailing slash (SEP-2468: compared byte for byte)", asCfg: func(a *authServer) { a.issSlash = true }, wantErr: oauth.ErrIssuerMismatch},
		{name: "iss promised but missing", asCfg: func(a *authServer) { a.advertiseIss = true }, wantErr: oauth.ErrIssuerMismatch},
		{name: "no way to identify the client", asCfg: func(a *authServer) { a.noRegistration = true }, wantMsg: "set Config.ClientID"},
		{name: "authorization server over plain http", mcpCfg: func(m *mcpServer) {
			m.as = func() string { return "http://auth.example.com" }
		}, wantMsg: "must be an https URL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as, m := setup(t, tc.asCfg, tc.mcpCfg)
			_, c := newTransport(t, oauth.Config{})
			_, _, err := call(t, c, m.URL(), "tools/list")
			require.Error(t, err)
			if tc.wantErr != nil {
				assert.ErrorIs(t, err, tc.wantErr)
			}
			assert.ErrorContains(t, err, tc.wantMsg)
			_, _, tokens, _ := as.snapshot()
			assert.Empty(t, tokens, "no token may be requested")
			if errors.Is(err, oauth.ErrResourceMismatch) {
				_, auths, _, regs := as.snapshot()
				assert.Empty(t, auths)
				assert.Empty(t, regs)
			}
		})
	}
}

func TestAuthorizationErrorResponse(t *testing.T) {
	_, m := setup(t, nil, nil)
	_, c := newTransport(t, oauth.Config{Grant: &oauth.AuthorizationCode{
		RedirectURL: redirectURL,
		Authorize: func(context.Context, string) (url.Values, error) {
			return url.Values{"error": {"access_denied"}, "error_description": {"user said no"}}, nil
		},
	}})
	_, _, err := call(t, c, m.URL(), "tools/list")
	var oe *oauth.Error
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "access_denied", oe.Code)
	assert.Equal(t, "user said no", oe.Description)
}

// legacyServer is a 2025-03-26 MCP server: no protected resource metadata,
// its own origin is the authorization server.
func legacyServer(t *testing.T, asCfg func(*authServer)) (*authServer, string) {
	as := newAuthServer(t, asCfg)
	m := newMCPServer(t, as.scopesOf, as.URL, func(m *mcpServer) { m.prmPath = "" })
	// Put the authorization server behind the MCP server's origin.
	mcpHandler := m.srv.Config.Handler
	m.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			mcpHandler.ServeHTTP(w, r)
			return
		}
		as.serve(w, r)
	})
	as.srv.Close()
	as.srv = m.srv
	return as, m.URL()
}

func TestLegacyServer(t *testing.T) {
	t.Run("metadata at the root with an issuer on the same origin", func(t *testing.T) {
		as, u := legacyServer(t, func(a *authServer) { a.prefix = "/oauth" })
		// The root well-known URL must answer for the origin.
		handler := as.srv.Config.Handler
		as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/.well-known/oauth-authorization-server" {
				r.URL.Path = "/.well-known/oauth-authorization-server/oauth"
			}
			handler.ServeHTTP(w, r)
		})
		_, c := newTransport(t, oauth.Config{})
		mustCall(t, c, u, "tools/list")
		paths, auths, _, _ := as.snapshot()
		assert.Contains(t, paths, "/oauth/authorize")
		assert.Equal(t, u, auths[0].Get("resource"))
	})
	t.Run("metadata naming an issuer on another origin", func(t *testing.T) {
		as, u := legacyServer(t, func(a *authServer) { a.issuer = "https://elsewhere.example" })
		_, c := newTransport(t, oauth.Config{})
		_, _, err := call(t, c, u, "tools/list")
		assert.ErrorIs(t, err, oauth.ErrIssuerMismatch)
		_, auths, _, _ := as.snapshot()
		assert.Empty(t, auths)
	})
	t.Run("no metadata: default endpoints", func(t *testing.T) {
		as, u := legacyServer(t, nil)
		handler := as.srv.Config.Handler
		as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/.well-known/") {
				http.NotFound(w, r)
				return
			}
			handler.ServeHTTP(w, r)
		})
		_, c := newTransport(t, oauth.Config{})
		mustCall(t, c, u, "tools/list")
		paths, _, _, regs := as.snapshot()
		assert.Contains(t, paths, "/authorize")
		assert.Contains(t, paths, "/token")
		assert.Len(t, regs, 1)
	})
}

func TestScopeSelection(t *testing.T) {
	for _, tc := range []struct {
		name   string
		asCfg  func(*authServer)
		mcpCfg func(*mcpServer)
		want   string // requested scope; "" means the parameter is omitted
	}{
		{"from the challenge", nil, func(m *mcpServer) {
			m.challengeScope, m.scopesSupported = "files:read", []string{"a", "b"}
		}, "files:read"},
		{"from scopes_supported", nil, func(m *mcpServer) { m.scopesSupported = []string{"a", "b", "c"} }, "a b c"},
		{"omitted when undefined", nil, nil, ""},
		{"offline_access when the server lists it", func(a *authServer) { a.scopes = []string{"a", "offline_access"} },
			func(m *mcpServer) { m.scopesSupported = []string{"a"} }, "a offline_access"},
		{"no offline_access when the server does not list it", func(a *authServer) { a.scopes = []string{"a", "b"} },
			func(m *mcpServer) { m.scopesSupported = []string{"a", "b"} }, "a b"},
		{"no lone offline_access", func(a *authServer) { a.scopes = []string{"offline_access"} }, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			as, m := setup(t, tc.asCfg, tc.mcpCfg)
			_, c := newTransport(t, oauth.Config{})
			mustCall(t, c, m.URL(), "tools/list")
			_, auths, _, _ := as.snapshot()
			require.Len(t, auths, 1)
			assert.Equal(t, tc.want != "", auths[0].Has("scope"))
			assert.Equal(t, tc.want, auths[0].Get("scope"))
		})
	}
}

func TestStepUp(t *testing.T) {
	as, m := setup(t, nil, func(m *mcpServer) {
		m.challengeScope = "read"
		m.require = map[string][]string{"tools/list": {"read"}, "tools/call": {"read", "write"}}
	})
	tr, c := newTransport(t, oauth.Config{})
	mustCall(t, c, m.URL(), "tools/list")
	mustCall(t, c, m.URL(), "tools/call")
	_, auths, _, regs := as.snapshot()
	require.Len(t, auths, 2)
	assert.Equal(t, "read", auths[0].Get("scope"))
	assert.Equal(t, "read write", auths[1].Get("scope"))
	assert.Len(t, regs, 1, "a step-up keeps the registration")
	tok, _ := tr.Token()
	assert.Equal(t, []string{"read", "write"}, tok.Scopes)
}

func TestStepUpIsLimited(t *testing.T) {
	as, m := setup(t, nil, func(m *mcpServer) {
		m.always403 = true
		m.require = map[string][]string{"tools/list": {"admin"}}
	})
	_, c := newTransport(t, oauth.Config{})
	status, _, err := call(t, c, m.URL(), "tools/list")
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, status, "the last refusal is handed back")
	_, auths, _, _ := as.snapshot()
	assert.Len(t, auths, 2, "one authorization for the 401, one step-up for the 403, then stop")
	assert.Len(t, m.seen(), 3)

	// The token now has the scope the server keeps asking for: authorizing
	// again cannot help, so later requests do not try.
	status, _, err = call(t, c, m.URL(), "tools/list")
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, status)
	_, auths, _, _ = as.snapshot()
	assert.Len(t, auths, 2)
	assert.Len(t, m.seen(), 4)
}

func TestTokenEndpointAuthentication(t *testing.T) {
	for _, method := range []string{"client_secret_basic", "client_secret_post", "none"} {
		t.Run("registered "+method, func(t *testing.T) {
			as, m := setup(t, func(a *authServer) { a.authMethods = []string{method} }, nil)
			_, c := newTransport(t, oauth.Config{})
			mustCall(t, c, m.URL(), "tools/list")
			_, _, tokens, regs := as.snapshot()
			require.Len(t, regs, 1)
			assert.Equal(t, method, regs[0]["token_endpoint_auth_method"])
			require.Len(t, tokens, 1)
			assert.Equal(t, method == "client_secret_basic", tokens[0].Has("_authorization"))
			assert.Equal(t, method == "client_secret_post", tokens[0].Has("client_secret"))
		})
	}
	t.Run("pre-registered", func(t *testing.T) {
		as, m := setup(t, func(a *authServer) {
			a.noRegistration, a.authMethods = true, []string{"client_secret_basic"}
			a.preClientID, a.preSecret = "pre:client", "s3cret&"
		}, nil)
		_, c := newTransport(t, oauth.Config{ClientID: "pre:client", ClientSecret: "s3cret&"})
		mustCall(t, c, m.URL(), "tools/list")
		_, auths, _, regs := as.snapshot()
		assert.Empty(t, regs)
		assert.Equal(t, "pre:client", auths[0].Get("client_id"))
	})
	t.Run("client ID metadata document", func(t *testing.T) {
		const doc = "https://client.example/metadata.json"
		as, m := setup(t, func(a *authServer) { a.cimd = true }, nil)
		_, c := newTransport(t, oauth.Config{ClientMetadataURL: doc})
		mustCall(t, c, m.URL(), "tools/list")
		_, auths, tokens, regs := as.snapshot()
		assert.Empty(t, regs)
		assert.Equal(t, doc, auths[0].Get("client_id"))
		assert.Equal(t, doc, tokens[0].Get("client_id"))
	})
	t.Run("metadata document URL unused where unsupported", func(t *testing.T) {
		as, m := setup(t, nil, nil)
		_, c := newTransport(t, oauth.Config{ClientMetadataURL: "https://client.example/metadata.json"})
		mustCall(t, c, m.URL(), "tools/list")
		_, _, _, regs := as.snapshot()
		assert.Len(t, regs, 1)
	})
}

func TestRefresh(t *testing.T) {
	t.Run("after the server revokes the access token", func(t *testing.T) {
		as, m := setup(t, func(a *authServer) { a.refresh = true }, nil)
		_, c := newTransport(t, oauth.Config{})
		mustCall(t, c, m.URL(), "tools/list")
		as.revokeAccess()
		mustCall(t, c, m.URL(), "tools/list")
		_, auths, tokens, _ := as.snapshot()
		assert.Len(t, auths, 1, "refreshed, not authorized again")
		require.Len(t, tokens, 2)
		assert.Equal(t, "refresh_token", tokens[1].Get("grant_type"))
		assert.Equal(t, m.URL(), tokens[1].Get("resource"))
	})
	t.Run("before the access token expires", func(t *testing.T) {
		as, m := setup(t, func(a *authServer) { a.refresh, a.expiresIn = true, 60 }, nil)
		tr, c := newTransport(t, oauth.Config{})
		now := time.Now()
		oauth.SetClock(tr, func() time.Time { return now })
		mustCall(t, c, m.URL(), "tools/list")
		now = now.Add(55 * time.Second) // inside the refresh margin
		mustCall(t, c, m.URL(), "tools/list")
		_, _, tokens, _ := as.snapshot()
		require.Len(t, tokens, 2)
		assert.Equal(t, "refresh_token", tokens[1].Get("grant_type"))
		assert.Len(t, m.seen(), 3, "the refreshed token was sent at once, without a 401")
	})
}

func ecKey(t testing.TB) (*ecdsa.PrivateKey, []byte) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	der, err := x509.MarshalPKCS8PrivateKey(k)
	require.NoError(t, err)
	return k, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func TestClientCredentials(t *testing.T) {
	t.Run("client_secret_basic", func(t *testing.T) {
		as, m := setup(t, func(a *authServer) {
			a.authMethods, a.preClientID, a.preSecret = []string{"client_secret_basic"}, "svc", "pw"
		}, func(m *mcpServer) { m.scopesSupported = []string{"mcp"} })
		_, c := newTransport(t, oauth.Config{Grant: &oauth.ClientCredentials{}, ClientID: "svc", ClientSecret: "pw"})
		mustCall(t, c, m.URL(), "tools/list")
		_, auths, tokens, _ := as.snapshot()
		assert.Empty(t, auths)
		require.Len(t, tokens, 1)
		assert.Equal(t, "client_credentials", tokens[0].Get("grant_type"))
		assert.Equal(t, "mcp", tokens[0].Get("scope"))
		assert.Equal(t, m.URL(), tokens[0].Get("resource"))
	})
	t.Run("private_key_jwt", func(t *testing.T) {
		k, pemBytes := ecKey(t)
		as, m := setup(t, func(a *authServer) {
			a.authMethods, a.preClientID, a.clientKey = []string{"private_key_jwt"}, "svc", &k.PublicKey
		}, nil)
		key, err := oauth.ParsePrivateKey(pemBytes)
		require.NoError(t, err)
		_, c := newTransport(t, oauth.Config{Grant: &oauth.ClientCredentials{}, ClientID: "svc", PrivateKey: key})
		mustCall(t, c, m.URL(), "tools/list")
		_, _, tokens, _ := as.snapshot()
		require.Len(t, tokens, 1)
		assert.NotEmpty(t, tokens[0].Get("client_assertion"), "verified by the server")
	})
}

func TestIdentityAssertion(t *testing.T) {
	const idToken, jag = "the-id-token", "the-id-jag"
	as, m := setup(t, func(a *authServer) {
		a.authMethods, a.preClientID, a.preSecret, a.jag = []string{"client_secret_basic"}, "mcp-client", "mcp-secret", jag
	}, nil)
	var exchanges []url.Values
	var mu sync.Mutex
	idp := newAuthServer(t, nil)
	idp.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		exchanges = append(exchanges, r.PostForm)
		mu.Unlock()
		f := r.PostForm
		if f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange" || f.Get("subject_token") != idToken ||
			f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" ||
			f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" ||
			f.Get("audience") != as.URL() || f.Get("resource") != m.URL() || f.Get("client_id") != "idp-client" {
			oauthError(w, 400, "invalid_request", fmt.Sprint(f))
			return
		}
		writeJSON(w, 200, map[string]string{"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag", "token_type": "N_A"})
	})
	_, c := newTransport(t, oauth.Config{
		ClientID: "mcp-client", ClientSecret: "mcp-secret",
		Grant: &oauth.IdentityAssertion{
			IdPTokenURL: idp.srv.URL + "/token", IdPClientID: "idp-client",
			IDToken: func(context.Context) (string, error) { return idToken, nil },
		},
	})
	mustCall(t, c, m.URL(), "tools/list")
	_, _, tokens, _ := as.snapshot()
	require.Len(t, tokens, 1)
	assert.Equal(t, "urn:ietf:params:oauth:grant-type:jwt-bearer", tokens[0].Get("grant_type"))
	assert.Len(t, exchanges, 1)
}

func TestConcurrentRefusalsAuthorizeOnce(t *testing.T) {
	as, m := setup(t, nil, nil)
	_, c := newTransport(t, oauth.Config{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { mustCall(t, c, m.URL(), "tools/list") })
	}
	wg.Wait()
	_, auths, _, regs := as.snapshot()
	assert.Len(t, auths, 1)
	assert.Len(t, regs, 1)
}

func TestTokenStaysWithItsServer(t *testing.T) {
	_, m := setup(t, nil, nil)
	_, other := setup(t, nil, nil)
	_, c := newTransport(t, oauth.Config{})
	mustCall(t, c, m.URL(), "tools/list")
	status, _, err := call(t, c, other.URL(), "tools/list")
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, status, "another server's challenge is not answered")
	for _, s := range other.seen() {
		assert.Empty(t, s.authorization, "the token must not leave its server")
	}
}

func TestAuthorizeHonoursContext(t *testing.T) {
	_, m := setup(t, nil, nil)
	entered := make(chan struct{})
	_, c := newTransport(t, oauth.Config{Grant: &oauth.AuthorizationCode{
		RedirectURL: redirectURL,
		Authorize: func(ctx context.Context, _ string) (url.Values, error) {
			close(entered)
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}})
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, m.URL(), strings.NewReader(`{"method":"x"}`))
		_, err := c.Do(req)
		errc <- err
	}()
	<-entered
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
}

func TestNewRejectsBadConfig(t *testing.T) {
	ok := oauth.AutoApprove(nil)
	for _, tc := range []struct {
		name string
		cfg  oauth.Config
		want string
	}{
		{"no grant", oauth.Config{}, "Grant is required"},
		{"no authorize func", oauth.Config{Grant: &oauth.AuthorizationCode{RedirectURL: redirectURL}}, "Authorize is required"},
		{"relative redirect", oauth.Config{Grant: &oauth.AuthorizationCode{RedirectURL: "/cb", Authorize: ok}}, "RedirectURL"},
		{"http metadata document", oauth.Config{Grant: &oauth.ClientCredentials{}, ClientMetadataURL: "http://x.example/c.json"}, "ClientMetadataURL"},
		{"secret without id", oauth.Config{Grant: &oauth.ClientCredentials{}, ClientSecret: "s"}, "ClientSecret without"},
		{"identity assertion without IdP", oauth.Config{Grant: &oauth.IdentityAssertion{}, ClientID: "c"}, "IDToken"},
		{"identity assertion over http", oauth.Config{ClientID: "c", Grant: &oauth.IdentityAssertion{
			IdPTokenURL: "http://idp.example/token", IdPClientID: "i",
			IDToken: func(context.Context) (string, error) { return "", nil }}}, "https"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := oauth.New(tc.cfg)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestParsePrivateKey(t *testing.T) {
	_, pkcs8 := ecKey(t)
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	sec1, err := x509.MarshalECPrivateKey(k)
	require.NoError(t, err)
	for name, in := range map[string][]byte{
		"PKCS #8": pkcs8,
		"SEC 1":   pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: sec1}),
	} {
		key, err := oauth.ParsePrivateKey(in)
		assert.NoError(t, err, name)
		assert.NotNil(t, key, name)
	}
	_, err = oauth.ParsePrivateKey([]byte("not a key"))
	assert.ErrorContains(t, err, "no PEM block")
	_, err = oauth.ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}}))
	assert.ErrorContains(t, err, "unsupported PEM block type")
}

func TestErrorText(t *testing.T) {
	e := &oauth.Error{Endpoint: "https://as.example/token", Status: 400, Code: "invalid_grant", Description: "expired"}
	assert.Equal(t, "oauth: https://as.example/token: status 400: invalid_grant: expired", e.Error())
	e = &oauth.Error{Endpoint: "https://as.example/authorize", Code: "access_denied"}
	assert.Equal(t, "oauth: https://as.example/authorize: access_denied", e.Error())
}

// Issue 32 (SEP-2352): when the server moves to another authorization
// server, a refused token sends the client back to the protected resource
// metadata; it registers with the new server and gets a token there, never
// refreshing or reusing the old server's.
func TestAuthorizationServerMigration(t *testing.T) {
	as1 := newAuthServer(t, func(a *authServer) { a.expiresIn = 3600 })
	as2 := newAuthServer(t, nil)
	var moved atomic.Bool
	current := func() *authServer {
		if moved.Load() {
			return as2
		}
		return as1
	}
	m := newMCPServer(t, func(tok string) ([]string, bool) { return current().scopesOf(tok) }, func() string { return current().URL() }, nil)
	_, c := newTransport(t, oauth.Config{ClientName: "demo"})

	mustCall(t, c, m.URL(), "tools/list")
	moved.Store(true)
	mustCall(t, c, m.URL(), "tools/call")

	_, _, tokens1, regs1 := as1.snapshot()
	_, _, tokens2, regs2 := as2.snapshot()
	assert.Len(t, regs1, 1)
	assert.Len(t, tokens1, 1, "no refresh at the old server")
	assert.Len(t, regs2, 1, "registered again with the new server")
	assert.Len(t, tokens2, 1)
}

// Issue 32 (the workload identity extension): a JWT the client holds is
// presented in a JWT bearer grant, and a refusal comes back as it is, with
// no retry and no other grant.
func TestJWTBearer(t *testing.T) {
	const workload = "the-workload-jwt"
	as, m := setup(t, func(a *authServer) {
		a.authMethods, a.preClientID, a.preSecret, a.jag = []string{"client_secret_basic"}, "wif-client", "wif-secret", workload
	}, nil)
	calls := 0
	_, c := newTransport(t, oauth.Config{ClientID: "wif-client", ClientSecret: "wif-secret",
		Grant: &oauth.JWTBearer{Assertion: func(context.Context) (string, error) { calls++; return workload, nil }}})
	mustCall(t, c, m.URL(), "tools/list")
	_, _, tokens, _ := as.snapshot()
	require.Len(t, tokens, 1)
	assert.Equal(t, "urn:ietf:params:oauth:grant-type:jwt-bearer", tokens[0].Get("grant_type"))
	assert.Equal(t, workload, tokens[0].Get("assertion"))
	assert.Equal(t, 1, calls)

	// A JWT the server refuses: the error, one token request, nothing else.
	as2, m2 := setup(t, func(a *authServer) {
		a.authMethods, a.preClientID, a.preSecret, a.jag = []string{"client_secret_basic"}, "wif-client", "wif-secret", "another-jwt"
	}, nil)
	_, c2 := newTransport(t, oauth.Config{ClientID: "wif-client", ClientSecret: "wif-secret",
		Grant: &oauth.JWTBearer{Assertion: func(context.Context) (string, error) { return workload, nil }}})
	_, _, err := call(t, c2, m2.URL(), "tools/list")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "invalid_grant")
	_, auths, tokens2, _ := as2.snapshot()
	assert.Len(t, tokens2, 1, "no retry")
	assert.Empty(t, auths, "no switch to another grant")

	_, err = oauth.New(oauth.Config{Grant: &oauth.JWTBearer{}})
	assert.ErrorContains(t, err, "JWTBearer.Assertion is required")
}
