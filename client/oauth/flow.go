package oauth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Grant type and token type URIs of the extension grants.
const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	grantJWTBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
	assertionTypeJWT   = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// obtainLocked runs the configured grant for scopes.
func (t *Transport) obtainLocked(ctx context.Context, scopes []string) (*Token, error) {
	reg, err := t.registrationLocked(ctx)
	if err != nil {
		return nil, err
	}
	form := url.Values{}
	if t.resource != "" {
		form.Set("resource", t.resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	switch g := t.cfg.Grant.(type) {
	case *AuthorizationCode:
		return t.authorizationCode(ctx, g, reg, scopes)
	case *ClientCredentials:
		form.Set("grant_type", "client_credentials")
		return t.tokenRequest(ctx, reg, form)
	case *IdentityAssertion:
		jag, err := t.exchangeIDToken(ctx, g, scopes)
		if err != nil {
			return nil, err
		}
		form.Set("grant_type", grantJWTBearer)
		form.Set("assertion", jag)
		return t.tokenRequest(ctx, reg, form)
	case *JWTBearer:
		jwt, err := g.Assertion(ctx)
		if err != nil {
			return nil, fmt.Errorf("oauth: JWTBearer.Assertion: %w", err)
		}
		form.Set("grant_type", grantJWTBearer)
		form.Set("assertion", jwt)
		return t.tokenRequest(ctx, reg, form)
	}
	return nil, fmt.Errorf("oauth: unsupported grant %T", t.cfg.Grant)
}

func randomString(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// authorizationCode runs the authorization code grant with PKCE S256.
func (t *Transport) authorizationCode(ctx context.Context, g *AuthorizationCode, reg registration, scopes []string) (*Token, error) {
	as := t.as
	if as.AuthorizationEndpoint == "" {
		return nil, fmt.Errorf("oauth: authorization server %s has no authorization_endpoint", as.Issuer)
	}
	if !supports(as.CodeChallengeMethodsSupported, "S256") {
		// MCP requires PKCE; metadata that does not promise S256 may mean
		// the server ignores the challenge, so refuse rather than go on.
		return nil, fmt.Errorf("oauth: authorization server %s does not list S256 in code_challenge_methods_supported; refusing to authorize without PKCE", as.Issuer)
	}
	verifier := randomString(32)
	sum := sha256.Sum256([]byte(verifier))
	state := randomString(16)

	au, err := url.Parse(as.AuthorizationEndpoint)
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization_endpoint: %w", err)
	}
	q := au.Query()
	q.Set("response_type", "code")
	q.Set("client_id", reg.clientID)
	q.Set("redirect_uri", g.RedirectURL)
	q.Set("code_challenge", base64.RawURLEncoding.EncodeToString(sum[:]))
	q.Set("code_challenge_method", "S256")
	q.Set("state", state)
	if t.resource != "" {
		q.Set("resource", t.resource)
	}
	if len(scopes) > 0 {
		q.Set("scope", strings.Join(scopes, " "))
	}
	au.RawQuery = q.Encode()

	back, err := g.Authorize(ctx, au.String())
	if err != nil {
		return nil, fmt.Errorf("oauth: authorization: %w", err)
	}
	if e := back.Get("error"); e != "" {
		return nil, &Error{Endpoint: as.AuthorizationEndpoint, Code: e, Description: back.Get("error_description")}
	}
	if back.Get("state") != state {
		return nil, fmt.Errorf("oauth: authorization response state %q does not match the request's", back.Get("state"))
	}
	if iss := back.Get("iss"); iss != "" || as.AuthorizationResponseIssParameterSupported {
		// Byte for byte, no normalising (RFC 9207 §2.4 by way of RFC 3986
		// simple string comparison; SEP-2468): a trailing-slash variant is
		// another issuer.
		if iss != as.Issuer {
			return nil, fmt.Errorf("%w: authorization response iss %q, expected %q", ErrIssuerMismatch, iss, as.Issuer)
		}
	}
	code := back.Get("code")
	if code == "" {
		return nil, errors.New("oauth: authorization response has no code")
	}
	form := url.Values{
		"grant_type":    {"authorization_code"},
		"code":          {code},
		"redirect_uri":  {g.RedirectURL},
		"code_verifier": {verifier},
	}
	if t.resource != "" {
		form.Set("resource", t.resource)
	}
	return t.tokenRequest(ctx, reg, form)
}

// refreshLocked redeems the refresh token (RFC 6749 §6).
func (t *Transport) refreshLocked(ctx context.Context) error {
	reg, ok := t.clients[t.as.Issuer]
	if !ok {
		return errors.New("oauth: no client registration to refresh with")
	}
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {t.tok.RefreshToken}}
	if t.resource != "" {
		form.Set("resource", t.resource)
	}
	tok, err := t.tokenRequest(ctx, reg, form)
	if err != nil {
		return err
	}
	if tok.RefreshToken == "" {
		tok.RefreshToken = t.tok.RefreshToken // RFC 6749 §6: the old one stays valid
	}
	if len(tok.Scopes) == 0 {
		tok.Scopes = t.tok.Scopes
	}
	t.setTokenLocked(tok, t.scopes)
	return nil
}

// exchangeIDToken trades the user's ID token for an ID-JAG at the identity
// provider (RFC 8693 token exchange as profiled by SEP-990), addressed to
// the MCP server's authorization server and naming the MCP server.
func (t *Transport) exchangeIDToken(ctx context.Context, g *IdentityAssertion, scopes []string) (string, error) {
	idToken, err := g.IDToken(ctx)
	if err != nil {
		return "", fmt.Errorf("oauth: getting the ID token: %w", err)
	}
	form := url.Values{
		"grant_type":           {grantTokenExchange},
		"requested_token_type": {tokenTypeIDJAG},
		"subject_token":        {idToken},
		"subject_token_type":   {tokenTypeIDToken},
		"audience":             {t.as.Issuer},
		"resource":             {t.resource},
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if g.IdPClientSecret == "" {
		form.Set("client_id", g.IdPClientID)
	}
	req, err := t.formRequest(ctx, g.IdPTokenURL, form)
	if err != nil {
		return "", err
	}
	if g.IdPClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(g.IdPClientID), url.QueryEscape(g.IdPClientSecret))
	}
	var out struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
	}
	if err := t.postJSON(req, &out); err != nil {
		return "", err
	}
	if out.AccessToken == "" || out.IssuedTokenType != tokenTypeIDJAG {
		return "", fmt.Errorf("oauth: %s: token exchange returned issued_token_type %q (want %s) or no access_token", g.IdPTokenURL, out.IssuedTokenType, tokenTypeIDJAG)
	}
	return out.AccessToken, nil
}

// tokenRequest posts form to the token endpoint, authenticated as reg.
func (t *Transport) tokenRequest(ctx context.Context, reg registration, form url.Values) (*Token, error) {
	switch reg.authMethod {
	case "client_secret_post":
		form.Set("client_id", reg.clientID)
		form.Set("client_secret", reg.secret)
	case "private_key_jwt":
		a, err := clientAssertion(t.cfg.PrivateKey, t.cfg.KeyID, reg.clientID, t.as.Issuer, t.now())
		if err != nil {
			return nil, err
		}
		form.Set("client_id", reg.clientID)
		form.Set("client_assertion_type", assertionTypeJWT)
		form.Set("client_assertion", a)
	case "client_secret_basic":
	default: // none: a public client names itself
		form.Set("client_id", reg.clientID)
	}
	var out struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		ExpiresIn    int64  `json:"expires_in"`
		RefreshToken string `json:"refresh_token"`
		Scope        string `json:"scope"`
	}
	for attempt := 0; ; attempt++ {
		req, err := t.formRequest(ctx, t.as.TokenEndpoint, form)
		if err != nil {
			return nil, err
		}
		if reg.authMethod == "client_secret_basic" {
			// RFC 6749 §2.3.1: both parts form-encoded before Basic encoding.
			req.SetBasicAuth(url.QueryEscape(reg.clientID), url.QueryEscape(reg.secret))
		}
		if t.cfg.DPoPKey != nil {
			proof, err := t.dpopProof(http.MethodPost, t.as.TokenEndpoint, t.asNonce, "")
			if err != nil {
				return nil, err
			}
			req.Header.Set("DPoP", proof)
		}
		err = t.postJSON(req, &out)
		var oe *Error
		if t.cfg.DPoPKey != nil && attempt == 0 && errors.As(err, &oe) && oe.Code == "use_dpop_nonce" && t.asNonce != "" {
			continue // once more, with the nonce the server just gave (RFC 9449 §8)
		}
		if err != nil {
			return nil, err
		}
		break
	}
	if out.AccessToken == "" {
		return nil, fmt.Errorf("oauth: %s: token response has no access_token", t.as.TokenEndpoint)
	}
	tokenType := "Bearer"
	switch {
	case strings.EqualFold(out.TokenType, "Bearer"):
	case strings.EqualFold(out.TokenType, tokenDPoP) && t.cfg.DPoPKey != nil:
		tokenType = tokenDPoP
	default:
		return nil, fmt.Errorf("oauth: %s: token_type %q is neither Bearer nor (with Config.DPoPKey) DPoP", t.as.TokenEndpoint, out.TokenType)
	}
	tok := &Token{
		AccessToken:  out.AccessToken,
		TokenType:    tokenType,
		RefreshToken: out.RefreshToken,
		Scopes:       strings.Fields(out.Scope),
	}
	if out.ExpiresIn > 0 {
		tok.Expiry = t.now().Add(time.Duration(out.ExpiresIn) * time.Second)
	}
	return tok, nil
}

func (t *Transport) formRequest(ctx context.Context, endpoint string, form url.Values) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, nil)
	if err != nil {
		return nil, fmt.Errorf("oauth: %s: %w", endpoint, err)
	}
	setForm(req, form)
	req.Header.Set("Accept", "application/json")
	return req, nil
}

func setForm(req *http.Request, form url.Values) {
	body := form.Encode()
	req.Body = io.NopCloser(strings.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
}

// postJSON sends req and decodes a 2xx JSON answer into out; an error
// answer becomes an [*Error].
func (t *Transport) postJSON(req *http.Request, out any) error {
	endpoint := req.URL.String()
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("oauth: %s %s: %w", req.Method, endpoint, err)
	}
	defer resp.Body.Close()
	if n := resp.Header.Get("DPoP-Nonce"); n != "" && t.as != nil && req.URL.String() == t.as.TokenEndpoint {
		t.asNonce = n // t.mu is held: token requests run in an authorization
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return fmt.Errorf("oauth: %s: reading response: %w", endpoint, err)
	}
	if len(body) > maxMetadataBytes {
		return fmt.Errorf("oauth: %s: response larger than %d bytes", endpoint, maxMetadataBytes)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var e struct {
			Error            string `json:"error"`
			ErrorDescription string `json:"error_description"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error == "" {
			e.Error = "unexpected_response"
			e.ErrorDescription = strings.TrimSpace(string(bytes.ToValidUTF8(body[:min(len(body), 200)], nil)))
		}
		return &Error{Endpoint: endpoint, Status: resp.StatusCode, Code: e.Error, Description: e.ErrorDescription}
	}
	if err := json.Unmarshal(body, out); err != nil {
		return fmt.Errorf("oauth: %s: response is not JSON: %w", endpoint, err)
	}
	return nil
}

// registrationLocked returns the client identity for the current
// authorization server: pre-registered, else a client ID metadata document
// URL where supported, else a dynamic registration (RFC 7591). Identities
// are kept per issuer, so a new authorization server means a new one.
func (t *Transport) registrationLocked(ctx context.Context) (registration, error) {
	as := t.as
	if r, ok := t.clients[as.Issuer]; ok {
		return r, nil
	}
	var r registration
	switch {
	case t.cfg.ClientID != "":
		r = registration{clientID: t.cfg.ClientID, secret: t.cfg.ClientSecret}
		r.authMethod = t.authMethod(r.secret != "", "")
	case t.cfg.ClientMetadataURL != "" && as.ClientIDMetadataDocumentSupported:
		r = registration{clientID: t.cfg.ClientMetadataURL, authMethod: t.authMethod(false, "")}
	case as.RegistrationEndpoint != "":
		var err error
		if r, err = t.register(ctx); err != nil {
			return r, err
		}
	default:
		return r, fmt.Errorf("oauth: no way to identify the client to %s: it supports neither dynamic registration nor (with Config.ClientMetadataURL) client ID metadata documents; set Config.ClientID", as.Issuer)
	}
	t.clients[as.Issuer] = r
	return r, nil
}

// authMethod picks the token endpoint authentication method: what the
// registration said, else a private key if configured, else the secret the
// way the server supports (RFC 8414's default is client_secret_basic),
// else none.
func (t *Transport) authMethod(haveSecret bool, registered string) string {
	if registered != "" {
		return registered
	}
	supported := t.as.TokenEndpointAuthMethodsSupported
	switch {
	case t.cfg.PrivateKey != nil:
		return "private_key_jwt"
	case !haveSecret:
		return "none"
	case len(supported) == 0 || supports(supported, "client_secret_basic"):
		return "client_secret_basic"
	case supports(supported, "client_secret_post"):
		return "client_secret_post"
	}
	return "client_secret_basic"
}

// register performs dynamic client registration (RFC 7591).
func (t *Transport) register(ctx context.Context) (registration, error) {
	as := t.as
	supported := as.TokenEndpointAuthMethodsSupported
	method := "none" // a public client, as a CLI or agent is
	if !supports(supported, "none") {
		switch {
		case len(supported) == 0 || supports(supported, "client_secret_basic"):
			method = "client_secret_basic"
		case supports(supported, "client_secret_post"):
			method = "client_secret_post"
		}
	}
	name := t.cfg.ClientName
	if name == "" {
		name = "mcptestkit"
	}
	md := map[string]any{
		"client_name":                name,
		"token_endpoint_auth_method": method,
	}
	switch g := t.cfg.Grant.(type) {
	case *AuthorizationCode:
		md["redirect_uris"] = []string{g.RedirectURL}
		md["grant_types"] = []string{"authorization_code", "refresh_token"}
		md["response_types"] = []string{"code"}
		appType := "web"
		if u, err := url.Parse(g.RedirectURL); err == nil && (isLoopback(u.Hostname()) || (u.Scheme != "http" && u.Scheme != "https")) {
			appType = "native" // loopback or custom-scheme redirects (RFC 8252)
		}
		md["application_type"] = appType
	case *ClientCredentials:
		md["grant_types"] = []string{"client_credentials"}
	case *IdentityAssertion, *JWTBearer:
		md["grant_types"] = []string{grantJWTBearer}
	}
	body, err := json.Marshal(md)
	if err != nil {
		return registration{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, as.RegistrationEndpoint, bytes.NewReader(body))
	if err != nil {
		return registration{}, fmt.Errorf("oauth: registration_endpoint: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	var out struct {
		ClientID                string `json:"client_id"`
		ClientSecret            string `json:"client_secret"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	}
	if err := t.postJSON(req, &out); err != nil {
		return registration{}, fmt.Errorf("oauth: dynamic client registration: %w", err)
	}
	if out.ClientID == "" {
		return registration{}, fmt.Errorf("oauth: dynamic client registration at %s returned no client_id", as.RegistrationEndpoint)
	}
	r := registration{clientID: out.ClientID, secret: out.ClientSecret}
	switch {
	case out.TokenEndpointAuthMethod != "":
		r.authMethod = out.TokenEndpointAuthMethod
	case out.ClientSecret != "":
		r.authMethod = t.authMethod(true, "")
	default:
		r.authMethod = "none"
	}
	return r, nil
}

// AutoApprove returns an [AuthorizeFunc] for authorization servers that
// approve without a user, such as test servers and the MCP conformance
// suite's mock: it GETs the authorization URL with c (nil means a plain
// client), does not follow the redirect, and returns the query of its
// Location. Any other answer is an error.
func AutoApprove(c *http.Client) AuthorizeFunc {
	var cc http.Client
	if c != nil {
		cc = *c
	}
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return func(ctx context.Context, authURL string) (url.Values, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
		if err != nil {
			return nil, err
		}
		resp, err := cc.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadataBytes))
		loc, err := resp.Location()
		if resp.StatusCode < 300 || resp.StatusCode > 399 || err != nil {
			return nil, fmt.Errorf("authorization endpoint answered %s, not a redirect with a Location", resp.Status)
		}
		return loc.Query(), nil
	}
}
