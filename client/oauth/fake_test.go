package oauth_test

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// authServer is an OAuth authorization server on 127.0.0.1 that checks
// what the client sends (PKCE, client authentication, grants) and records
// every request for the tests to inspect.
type authServer struct {
	t   testing.TB
	srv *httptest.Server

	// Configuration, set before the first request.
	prefix         string   // issuer path, e.g. "/tenant1"
	oidc           bool     // metadata as an OpenID configuration
	issuer         string   // overrides the issuer in the metadata
	authMethods    []string // token_endpoint_auth_methods_supported; nil: ["none"]
	scopes         []string // scopes_supported
	cimd           bool
	noRegistration bool
	noPKCE         bool
	issParam       string // "iss" added to the authorization redirect
	issSlash       bool   // "iss" is the issuer with a "/" added: another issuer, byte for byte
	advertiseIss   bool   // authorization_response_iss_parameter_supported
	stateOverride  string // a wrong "state" in the redirect
	expiresIn      int
	refresh        bool // issue refresh tokens
	preClientID    string
	preSecret      string
	clientKey      *ecdsa.PublicKey // verifies private_key_jwt assertions
	jag            string           // the ID-JAG accepted by the jwt-bearer grant

	mu            sync.Mutex
	paths         []string // every request path, in order
	authRequests  []url.Values
	tokenRequests []url.Values
	registrations []map[string]any
	clients       map[string]registered
	codes         map[string]codeGrant
	access        map[string][]string // token -> scopes
	refreshTokens map[string][]string
	n             int
}

type registered struct{ secret, method string }

type codeGrant struct {
	challenge, clientID, redirect, resource string
	scopes                                  []string
}

func newAuthServer(t testing.TB, configure func(*authServer)) *authServer {
	a := &authServer{t: t, clients: map[string]registered{}, codes: map[string]codeGrant{},
		access: map[string][]string{}, refreshTokens: map[string][]string{}}
	if configure != nil {
		configure(a)
	}
	if a.preClientID != "" {
		m := "client_secret_basic"
		if a.preSecret == "" {
			m = "none"
		}
		if a.clientKey != nil {
			m = "private_key_jwt"
		}
		a.clients[a.preClientID] = registered{secret: a.preSecret, method: m}
	}
	a.srv = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.srv.Close)
	return a
}

// URL is the issuer identifier.
func (a *authServer) URL() string { return a.srv.URL + a.prefix }

func (a *authServer) metadataPath() string {
	switch {
	case a.oidc && a.prefix != "":
		return a.prefix + "/.well-known/openid-configuration"
	case a.oidc:
		return "/.well-known/openid-configuration"
	}
	return "/.well-known/oauth-authorization-server" + a.prefix
}

func (a *authServer) snapshot() (paths []string, auths, tokens []url.Values, regs []map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.paths), slices.Clone(a.authRequests), slices.Clone(a.tokenRequests), slices.Clone(a.registrations)
}

// scopesOf reports whether tok is a live access token, and its scopes.
func (a *authServer) scopesOf(tok string) ([]string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.access[tok]
	return s, ok
}

// revokeAccess forgets every access token (refresh tokens stay valid).
func (a *authServer) revokeAccess() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.access = map[string][]string{}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func oauthError(w http.ResponseWriter, status int, code, desc string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": desc})
}

func (a *authServer) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.paths = append(a.paths, r.URL.Path)
	switch {
	case r.Method == http.MethodGet && r.URL.Path == a.metadataPath():
		a.metadata(w)
	case r.Method == http.MethodGet && r.URL.Path == a.prefix+"/authorize":
		a.authorize(w, r)
	case r.Method == http.MethodPost && r.URL.Path == a.prefix+"/token":
		a.token(w, r)
	case r.Method == http.MethodPost && r.URL.Path == a.prefix+"/register" && !a.noRegistration:
		a.register(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (a *authServer) metadata(w http.ResponseWriter) {
	base := a.srv.URL + a.prefix
	methods := a.authMethods
	if methods == nil {
		methods = []string{"none"}
	}
	md := map[string]any{
		"issuer":                                base,
		"authorization_endpoint":                base + "/authorize",
		"token_endpoint":                        base + "/token",
		"response_types_supported":              []string{"code"},
		"grant_types_supported":                 []string{"authorization_code", "refresh_token", "client_credentials"},
		"token_endpoint_auth_methods_supported": methods,
	}
	if a.issuer != "" {
		md["issuer"] = a.issuer
	}
	if !a.noRegistration {
		md["registration_endpoint"] = base + "/register"
	}
	if !a.noPKCE {
		md["code_challenge_methods_supported"] = []string{"S256"}
	}
	if a.scopes != nil {
		md["scopes_supported"] = a.scopes
	}
	if a.cimd {
		md["client_id_metadata_document_supported"] = true
	}
	if a.advertiseIss {
		md["authorization_response_iss_parameter_supported"] = true
	}
	writeJSON(w, http.StatusOK, md)
}

func (a *authServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.authRequests = append(a.authRequests, q)
	redirect, err := url.Parse(q.Get("redirect_uri"))
	if err != nil || q.Get("response_type") != "code" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	a.n++
	code := fmt.Sprintf("code-%d", a.n)
	a.codes[code] = codeGrant{challenge: q.Get("code_challenge"), clientID: q.Get("client_id"),
		redirect: q.Get("redirect_uri"), resource: q.Get("resource"), scopes: strings.Fields(q.Get("scope"))}
	back := redirect.Query()
	back.Set("code", code)
	back.Set("state", q.Get("state"))
	if a.stateOverride != "" {
		back.Set("state", a.stateOverride)
	}
	if a.issParam != "" {
		back.Set("iss", a.issParam)
	}
	if a.issSlash {
		back.Set("iss", a.URL()+"/")
	}
	redirect.RawQuery = back.Encode()
	http.Redirect(w, r, redirect.String(), http.StatusFound)
}

// clientAuth authenticates the token request's client the way it registered.
func (a *authServer) clientAuth(r *http.Request, form url.Values) (string, error) {
	if user, pass, ok := r.BasicAuth(); ok {
		id, _ := url.QueryUnescape(user)
		secret, _ := url.QueryUnescape(pass)
		c, known := a.clients[id]
		if !known || c.method != "client_secret_basic" || c.secret != secret {
			return "", fmt.Errorf("basic auth for %q does not match its registration %+v", id, c)
		}
		return id, nil
	}
	id := form.Get("client_id")
	c, known := a.clients[id]
	if !known && strings.HasPrefix(id, "https://") && a.cimd {
		c, known = registered{method: "none"}, true // a client ID metadata document URL
	}
	if !known {
		return "", fmt.Errorf("unknown client %q", id)
	}
	switch {
	case form.Has("client_assertion"):
		if c.method != "private_key_jwt" || form.Get("client_assertion_type") != "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" {
			return "", fmt.Errorf("unexpected client assertion for %q (%s)", id, c.method)
		}
		return id, verifyAssertion(a.clientKey, form.Get("client_assertion"), id, a.URL())
	case form.Has("client_secret"):
		if c.method != "client_secret_post" || c.secret != form.Get("client_secret") {
			return "", fmt.Errorf("client_secret_post for %q does not match its registration (%s)", id, c.method)
		}
		return id, nil
	}
	if c.method != "none" {
		return "", fmt.Errorf("client %q registered %s but did not authenticate", id, c.method)
	}
	return id, nil
}

func (a *authServer) token(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		oauthError(w, 400, "invalid_request", err.Error())
		return
	}
	form := r.PostForm
	a.tokenRequests = append(a.tokenRequests, form)
	if r.Header.Get("Authorization") != "" {
		form.Set("_authorization", r.Header.Get("Authorization"))
	}
	clientID, err := a.clientAuth(r, form)
	if err != nil {
		oauthError(w, 401, "invalid_client", err.Error())
		return
	}
	var scopes []string
	switch form.Get("grant_type") {
	case "authorization_code":
		g, ok := a.codes[form.Get("code")]
		delete(a.codes, form.Get("code"))
		sum := sha256.Sum256([]byte(form.Get("code_verifier")))
		switch {
		case !ok:
			oauthError(w, 400, "invalid_grant", "unknown or used code")
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != g.challenge:
			oauthError(w, 400, "invalid_grant", "PKCE verifier does not match the challenge")
			return
		case g.clientID != clientID || g.redirect != form.Get("redirect_uri") || g.resource != form.Get("resource"):
			oauthError(w, 400, "invalid_grant", "client, redirect_uri or resource differ from the authorization request")
			return
		}
		scopes = g.scopes
	case "refresh_token":
		s, ok := a.refreshTokens[form.Get("refresh_token")]
		if !ok {
			oauthError(w, 400, "invalid_grant", "unknown refresh token")
			return
		}
		scopes = s
	case "client_credentials":
		scopes = strings.Fields(form.Get("scope"))
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		if a.jag == "" || form.Get("assertion") != a.jag {
			oauthError(w, 400, "invalid_grant", "unknown assertion")
			return
		}
		scopes = strings.Fields(form.Get("scope"))
	default:
		oauthError(w, 400, "unsupported_grant_type", form.Get("grant_type"))
		return
	}
	a.n++
	tok := fmt.Sprintf("access-%d", a.n)
	a.access[tok] = scopes
	resp := map[string]any{"access_token": tok, "token_type": "Bearer"}
	if a.expiresIn > 0 {
		resp["expires_in"] = a.expiresIn
	}
	if a.refresh {
		rt := fmt.Sprintf("refresh-%d", a.n)
		a.refreshTokens[rt] = scopes
		resp["refresh_token"] = rt
	}
	writeJSON(w, 200, resp)
}

func (a *authServer) register(w http.ResponseWriter, r *http.Request) {
	var md map[string]any
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil {
		oauthError(w, 400, "invalid_client_metadata", err.Error())
		return
	}
	a.registrations = append(a.registrations, md)
	method, _ := md["token_endpoint_auth_method"].(string)
	a.n++
	id := fmt.Sprintf("client-%d", a.n)
	out := map[string]any{"client_id": id, "token_endpoint_auth_method": method}
	c := registered{method: method}
	if method != "none" {
		c.secret = fmt.Sprintf("secret-%d", a.n)
		out["client_secret"] = c.secret
	}
	a.clients[id] = c
	writeJSON(w, 201, out)
}

// verifyAssertion checks an ES256 private_key_jwt client assertion.
func verifyAssertion(key *ecdsa.PublicKey, jwt, clientID, audience string) error {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return fmt.Errorf("assertion has %d parts", len(parts))
	}
	var header struct{ Alg string }
	var claims struct {
		Iss, Sub, Aud, Jti string
		Exp, Iat           int64
	}
	for i, v := range []any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, v); err != nil {
			return err
		}
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 || header.Alg != "ES256" {
		return fmt.Errorf("assertion alg %q with %d-byte signature", header.Alg, len(sig))
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(key, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return fmt.Errorf("assertion signature does not verify")
	}
	now := time.Now().Unix()
	if claims.Iss != clientID || claims.Sub != clientID || claims.Aud != audience || claims.Jti == "" ||
		claims.Exp <= now || claims.Iat > now+5 {
		return fmt.Errorf("assertion claims %+v wrong for client %q audience %q", claims, clientID, audience)
	}
	return nil
}

// mcpServer is a protected MCP endpoint at /mcp that answers any POST with a
// JSON echo of the JSON-RPC method, once the bearer token is good enough.
type mcpServer struct {
	t   testing.TB
	srv *httptest.Server
	as  func() string // the authorization server(s) it names

	prmPath          string // "" means none (a 2025-03-26 server)
	prmInHeader      bool   // resource_metadata in the challenge
	resourceOverride string
	scopesSupported  []string
	challengeScope   string              // scope= in the 401 challenge
	require          map[string][]string // required scopes by JSON-RPC method
	always403        bool
	check            func(tok string) ([]string, bool)

	mu       sync.Mutex
	requests []seen
}

type seen struct{ method, authorization, body string }

func newMCPServer(t testing.TB, check func(string) ([]string, bool), as func() string, configure func(*mcpServer)) *mcpServer {
	m := &mcpServer{t: t, as: as, check: check, prmPath: "/.well-known/oauth-protected-resource/mcp", prmInHeader: true}
	if configure != nil {
		configure(m)
	}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *mcpServer) URL() string { return m.srv.URL + "/mcp" }

func (m *mcpServer) seen() []seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

func (m *mcpServer) challenge(w http.ResponseWriter, status int, errCode, scope string) {
	parts := []string{}
	if errCode != "" {
		parts = append(parts, fmt.Sprintf("error=%q", errCode))
	}
	if scope != "" {
		parts = append(parts, fmt.Sprintf("scope=%q", scope))
	}
	if m.prmInHeader && m.prmPath != "" {
		parts = append(parts, fmt.Sprintf("resource_metadata=%q", m.srv.URL+m.prmPath))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(parts, ", "))
	oauthError(w, status, errCode, "")
}

func (m *mcpServer) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && m.prmPath != "" && r.URL.Path == m.prmPath {
		res := m.srv.URL + "/mcp"
		if m.prmPath == "/.well-known/oauth-protected-resource" {
			res = m.srv.URL
		}
		if m.resourceOverride != "" {
			res = m.resourceOverride
		}
		md := map[string]any{"resource": res, "authorization_servers": []string{m.as()}}
		if m.scopesSupported != nil {
			md["scopes_supported"] = m.scopesSupported
		}
		writeJSON(w, 200, md)
		return
	}
	if r.Method != http.MethodPost || r.URL.Path != "/mcp" {
		http.NotFound(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var msg struct{ Method string }
	json.Unmarshal(body, &msg)
	m.mu.Lock()
	m.requests = append(m.requests, seen{msg.Method, r.Header.Get("Authorization"), string(body)})
	m.mu.Unlock()

	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	granted, valid := m.check(tok)
	if !ok || !valid {
		m.challenge(w, 401, "invalid_token", m.challengeScope)
		return
	}
	need := m.require[msg.Method]
	if m.always403 || !containsAll(granted, need) {
		m.challenge(w, 403, "insufficient_scope", strings.Join(need, " "))
		return
	}
	writeJSON(w, 200, map[string]string{"method": msg.Method, "body": string(body)})
}

func containsAll(have, need []string) bool {
	for _, n := range need {
		if !slices.Contains(have, n) {
			return false
		}
	}
	return true
}
