package oauth

import (
	"bytes"
	"context"
	"crypto"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Grant says how a [Transport] obtains access tokens. It is one of
// [*AuthorizationCode], [*ClientCredentials] or [*IdentityAssertion].
type Grant interface{ grant() }

// AuthorizeFunc sends the resource owner to authURL, an OAuth authorization
// request (RFC 6749 §4.1.1), and returns the query parameters of the
// redirect back to the client's redirect URI: "code" and "state" (and "iss"
// where the server sends it), or "error". An interactive client opens a
// browser and serves the redirect URI; [AutoApprove] is for servers that
// approve without a user.
type AuthorizeFunc func(ctx context.Context, authURL string) (url.Values, error)

// AuthorizationCode is the authorization code grant with PKCE (S256), the
// grant for acting on behalf of a user.
type AuthorizationCode struct {
	// RedirectURL is the client's redirect URI, sent in the authorization
	// and token requests and registered by dynamic client registration.
	RedirectURL string
	// Authorize performs the front-channel step. Required.
	Authorize AuthorizeFunc
}

// ClientCredentials is the client credentials grant (OAuth 2.1 §4.2, the
// SEP-1046 MCP extension), for a client acting on its own behalf. The client
// authenticates with [Config.ClientSecret] or [Config.PrivateKey].
type ClientCredentials struct{}

// IdentityAssertion is the enterprise-managed authorization extension
// (SEP-990): the client exchanges the user's ID token at its identity
// provider for an identity assertion authorization grant (ID-JAG, RFC 8693
// token exchange), then redeems that at the MCP server's authorization
// server (RFC 7523 JWT bearer grant), with no user interaction.
type IdentityAssertion struct {
	// IdPTokenURL is the identity provider's token endpoint.
	IdPTokenURL string
	// IdPClientID and IdPClientSecret authenticate the client at the
	// identity provider (HTTP Basic when a secret is set).
	IdPClientID string
	// IdPClientSecret may be empty: client_id then goes in the request body.
	IdPClientSecret string
	// IDToken returns the user's current ID token from the identity provider.
	IDToken func(ctx context.Context) (string, error)
}

// JWTBearer is the JWT bearer grant (RFC 7523) with a JWT the client holds
// already, such as a workload identity token its platform issued (the
// io.modelcontextprotocol/auth/wif extension): the JWT is the assertion,
// with no user and no other exchange. A refusal (invalid_grant,
// invalid_scope, unauthorized_client) is returned as it is: the transport
// neither retries nor tries another grant.
type JWTBearer struct {
	// Assertion returns the JWT to present; it is called for each token.
	Assertion func(ctx context.Context) (string, error)
}

func (*JWTBearer) grant()         {}
func (*AuthorizationCode) grant() {}
func (*ClientCredentials) grant() {}
func (*IdentityAssertion) grant() {}

// Config configures a [Transport].
type Config struct {
	// Grant says how tokens are obtained. Required.
	Grant Grant
	// Base carries the MCP requests and every OAuth request (discovery,
	// registration, tokens). nil means [http.DefaultTransport].
	Base http.RoundTripper

	// ClientID and ClientSecret are a pre-registered client. When ClientID is
	// empty the client identifies itself with ClientMetadataURL, if the
	// authorization server supports client ID metadata documents, and
	// otherwise registers dynamically (RFC 7591).
	ClientID string
	// ClientSecret may be empty for a public client; it needs ClientID.
	ClientSecret string
	// ClientMetadataURL is the https URL of this client's metadata document
	// (SEP-991), used as its client_id where the server supports that.
	ClientMetadataURL string
	// ClientName is the client_name sent in dynamic registration.
	// Empty means "mcptestkit".
	ClientName string
	// PrivateKey, if set, authenticates the client at the token endpoint
	// with a signed JWT (private_key_jwt, RFC 7523) instead of a secret.
	// See [ParsePrivateKey].
	PrivateKey crypto.Signer
	// KeyID is the "kid" header of the signed JWT, if the server needs one.
	KeyID string
	// DPoPKey, if set, binds tokens to this key (DPoP, RFC 9449): the
	// transport proves it holds the key with a fresh signed proof on every
	// token request and MCP request, and sends "Authorization: DPoP". Any
	// ECDSA, RSA or Ed25519 signer (a key in memory, or one a KMS or a
	// hardware token holds); ECDSA P-256 (ES256) is what servers expect
	// most. nil: bearer tokens.
	DPoPKey crypto.Signer
}

// Token is an access token the [Transport] holds.
type Token struct {
	// AccessToken is sent as "Authorization: <TokenType> <AccessToken>" on
	// MCP requests.
	AccessToken string
	// TokenType is "Bearer", or "DPoP" for a token bound to Config.DPoPKey;
	// other token types are refused.
	TokenType string
	// RefreshToken renews AccessToken near its expiry or after a rejection;
	// empty when the server issued none.
	RefreshToken string
	// Expiry is when the access token expires; zero if the server did not say.
	Expiry time.Time
	// Scopes are the granted scopes: the server's "scope" response, or the
	// requested scopes when it sent none.
	Scopes []string
}

// refreshMargin is how long before its expiry a token is refreshed, so that
// it does not expire in flight.
const refreshMargin = 10 * time.Second

// registration is the client identity in use at one authorization server.
type registration struct {
	clientID, secret, authMethod string
}

// Transport is an [http.RoundTripper] that makes MCP requests with an OAuth
// bearer token, following the MCP authorization spec: on a 401 it discovers
// the server's protected resource metadata (RFC 9728) and authorization
// server (RFC 8414 or OpenID Connect discovery), identifies the client
// (pre-registered, client ID metadata document, or dynamic registration),
// obtains a token with the configured [Grant] (always naming the server with
// the RFC 8707 resource parameter) and retries the request. A 403 with
// error="insufficient_scope" naming a scope the token lacks authorizes again
// with the added scopes (step-up), at most once per request; expired tokens
// are refreshed.
//
// One Transport serves one MCP server: the first server that challenges it
// becomes its server, and tokens are only ever sent to that origin. It is
// safe for concurrent use; concurrent requests that are refused together
// share one authorization. It replaces any Authorization header a request
// carries.
type Transport struct {
	cfg  Config
	base http.RoundTripper
	now  func() time.Time

	// mu guards the fields below and is held across an authorization, so
	// requests refused at the same time authorize once.
	mu       sync.Mutex
	origin   string // the protected server's origin, set by its first challenge
	tok      *Token
	gen      uint64   // bumped whenever tok changes
	scopes   []string // requested by the last authorization
	prmURL   string
	prm      *ResourceMetadata // nil for a 2025-03-26 server without one
	as       *ServerMetadata
	resource string // the RFC 8707 resource parameter
	clients  map[string]registration
	// The last DPoP nonces the authorization server and the MCP server gave
	// (RFC 9449 §8, §9).
	asNonce, rsNonce string
}

// New returns a Transport for cfg, or an error naming what in cfg is wrong.
func New(cfg Config) (*Transport, error) {
	switch g := cfg.Grant.(type) {
	case nil:
		return nil, errors.New("oauth: Config.Grant is required")
	case *AuthorizationCode:
		if g.Authorize == nil {
			return nil, errors.New("oauth: AuthorizationCode.Authorize is required")
		}
		if u, err := url.Parse(g.RedirectURL); err != nil || !u.IsAbs() || u.Fragment != "" {
			return nil, fmt.Errorf("oauth: AuthorizationCode.RedirectURL %q must be an absolute URL without a fragment", g.RedirectURL)
		}
	case *ClientCredentials:
	case *IdentityAssertion:
		if g.IDToken == nil || g.IdPClientID == "" {
			return nil, errors.New("oauth: IdentityAssertion needs IDToken and IdPClientID")
		}
		if _, err := checkSecureURL("IdentityAssertion.IdPTokenURL", g.IdPTokenURL); err != nil {
			return nil, err
		}
		if cfg.ClientID == "" {
			return nil, errors.New("oauth: IdentityAssertion needs Config.ClientID (the client's id at the MCP authorization server)")
		}
	case *JWTBearer:
		if g.Assertion == nil {
			return nil, errors.New("oauth: JWTBearer.Assertion is required")
		}
	}
	if cfg.ClientMetadataURL != "" {
		u, err := url.Parse(cfg.ClientMetadataURL)
		if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return nil, fmt.Errorf("oauth: Config.ClientMetadataURL %q must be an https URL with a path", cfg.ClientMetadataURL)
		}
	}
	if cfg.PrivateKey != nil {
		if _, err := jwsAlgorithm(cfg.PrivateKey); err != nil {
			return nil, err
		}
	}
	if cfg.ClientSecret != "" && cfg.ClientID == "" {
		return nil, errors.New("oauth: Config.ClientSecret without Config.ClientID")
	}
	base := cfg.Base
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{cfg: cfg, base: base, now: time.Now, clients: map[string]registration{}}, nil
}

// Client returns an [http.Client] that uses t, for HTTP transports that take
// a client.
func (t *Transport) Client() *http.Client { return &http.Client{Transport: t} }

// Token returns a copy of the current token, and whether there is one.
func (t *Transport) Token() (Token, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == nil {
		return Token{}, false
	}
	c := *t.tok
	c.Scopes = slices.Clone(c.Scopes)
	return c, true
}

// RoundTrip sends req with the current token and handles the server's
// authorization challenges. An error is returned when authorization fails;
// a response the transport cannot do anything about (a second 401, a 403
// after a step-up) is returned as it is.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := bodies(req)
	if err != nil {
		return nil, err
	}
	ctx := req.Context()
	authorized, steppedUp, nonced := false, false, false
	for attempt := 0; ; attempt++ {
		tok, gen := t.tokenFor(ctx, req.URL)
		b, err := body(attempt)
		if err != nil {
			return nil, fmt.Errorf("oauth: replaying request body: %w", err)
		}
		r := req.Clone(ctx)
		r.Body = b
		if tok != nil {
			r.Header.Set("Authorization", tok.TokenType+" "+tok.AccessToken)
			if tok.TokenType == tokenDPoP {
				proof, err := t.dpopProof(req.Method, req.URL.String(), t.nonce(&t.rsNonce), tok.AccessToken)
				if err != nil {
					return nil, err
				}
				r.Header.Set("DPoP", proof)
			}
		}
		resp, err := t.base.RoundTrip(r)
		if err != nil || !t.protects(req.URL) {
			return resp, err
		}
		if n := resp.Header.Get("DPoP-Nonce"); n != "" {
			t.setNonce(&t.rsNonce, n)
		}
		ch, _ := bearerChallenge(resp.Header)
		stepUp := false
		switch {
		case resp.StatusCode == http.StatusUnauthorized && tok != nil && tok.TokenType == tokenDPoP && !nonced && isNonceChallenge(resp):
			// The same request again, with the server's nonce in the proof.
			nonced = true
			io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadataBytes))
			resp.Body.Close()
			continue
		case resp.StatusCode == http.StatusUnauthorized && !authorized:
			authorized = true
		case resp.StatusCode == http.StatusForbidden && !steppedUp && ch.Param("error") == "insufficient_scope" && t.wantsMore(ch):
			steppedUp, stepUp = true, true
		default:
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, maxMetadataBytes))
		resp.Body.Close()
		if err := t.authorize(ctx, req.URL, ch, gen, stepUp); err != nil {
			return nil, err
		}
	}
}

// bodies returns the request body for each attempt. The first attempt gets
// req.Body; retries need a copy, from GetBody or from a buffer (MCP
// requests are single JSON messages, so buffering is cheap).
func bodies(req *http.Request) (func(attempt int) (io.ReadCloser, error), error) {
	if req.Body == nil || req.Body == http.NoBody {
		return func(int) (io.ReadCloser, error) { return req.Body, nil }, nil
	}
	if req.GetBody != nil {
		return func(attempt int) (io.ReadCloser, error) {
			if attempt == 0 {
				return req.Body, nil
			}
			return req.GetBody()
		}, nil
	}
	buf, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("oauth: reading request body: %w", err)
	}
	return func(int) (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf)), nil }, nil
}

// protects reports whether u belongs to the protected server (or no server
// has challenged yet), i.e. whether its challenges are ours to answer.
func (t *Transport) protects(u *url.URL) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.origin == "" || t.origin == origin(u)
}

// tokenFor returns the access token to send to u ("" for none), refreshing
// it first if it is about to expire, and the generation it belongs to.
func (t *Transport) tokenFor(ctx context.Context, u *url.URL) (*Token, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.tok == nil || t.origin != origin(u) {
		return nil, t.gen
	}
	if !t.tok.Expiry.IsZero() && !t.now().Add(refreshMargin).Before(t.tok.Expiry) {
		if t.tok.RefreshToken == "" || t.refreshLocked(ctx) != nil {
			// Send none: the 401 that follows starts a new authorization.
			t.tok = nil
			t.gen++
			return nil, t.gen
		}
	}
	tok := *t.tok
	return &tok, t.gen
}

// nonce and setNonce read and write a DPoP nonce under t.mu.
func (t *Transport) nonce(n *string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return *n
}

func (t *Transport) setNonce(n *string, v string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	*n = v
}

// wantsMore reports whether an insufficient_scope challenge asks for a
// scope the current token does not have. If it asks for nothing new,
// authorizing again would only get the same token, so the refusal stands:
// this bounds step-up loops across requests, as the per-request limit
// bounds them within one.
func (t *Transport) wantsMore(ch Challenge) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	have := []string(nil)
	if t.tok != nil {
		have = t.tok.Scopes
	}
	for _, s := range ch.Scopes() {
		if !slices.Contains(have, s) {
			return true
		}
	}
	return false
}

// authorize gets a new token after the server refused the token of
// generation gen with challenge ch.
func (t *Transport) authorize(ctx context.Context, u *url.URL, ch Challenge, gen uint64, stepUp bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.gen != gen {
		return nil // another request already replaced the refused token
	}
	if t.origin == "" {
		t.origin = origin(u)
	}
	// A refused token sends the client back to the protected resource
	// metadata: the server may have moved to another authorization server,
	// whose tokens (and client registration) the client must get anew
	// (SEP-2352). A refresh is tried only with the same server.
	refused := t.tok != nil
	previous := ""
	if t.as != nil {
		previous = t.as.Issuer
	}
	if err := t.discoverLocked(ctx, u, ch.Param("resource_metadata"), refused); err != nil {
		return err
	}
	if !stepUp && refused && t.as.Issuer == previous && t.tok.RefreshToken != "" && t.refreshLocked(ctx) == nil {
		return nil
	}
	scopes := t.scopesFor(ch, stepUp)
	tok, err := t.obtainLocked(ctx, scopes)
	if err != nil {
		return err
	}
	t.setTokenLocked(tok, scopes)
	return nil
}

func (t *Transport) setTokenLocked(tok *Token, scopes []string) {
	if len(tok.Scopes) == 0 {
		tok.Scopes = slices.Clone(scopes)
	}
	t.tok, t.scopes = tok, scopes
	t.gen++
}

// discoverLocked finds the protected resource and authorization server
// metadata, unless it is known, the challenge points nowhere new and again
// is false.
func (t *Transport) discoverLocked(ctx context.Context, u *url.URL, fromChallenge string, again bool) error {
	if !again && t.as != nil && (fromChallenge == "" || fromChallenge == t.prmURL) {
		return nil
	}
	prm, prmURL, err := discoverResource(ctx, t.base, u, fromChallenge)
	if err != nil {
		return err
	}
	if prm == nil {
		// 2025-03-26: the MCP server's origin is its authorization server.
		as, err := discoverServer(ctx, t.base, origin(u), true)
		if err != nil {
			return err
		}
		t.prm, t.prmURL, t.as, t.resource = nil, "", as, canonicalResource(u)
		return nil
	}
	var errs []error
	for _, issuer := range prm.AuthorizationServers {
		as, err := discoverServer(ctx, t.base, issuer, false)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		t.prm, t.prmURL, t.as, t.resource = prm, prmURL, as, prm.Resource
		return nil
	}
	return errors.Join(errs...)
}

// scopesFor picks the scopes to request (the MCP scope selection strategy):
// the challenge's scope, else everything the resource lists in
// scopes_supported, else none (the server's default). A step-up adds to the
// scopes already requested rather than trading them in. offline_access is
// added for a refresh token when the authorization server lists it and
// other scopes are requested (SEP-2207; alone it could replace the default
// scopes).
func (t *Transport) scopesFor(ch Challenge, stepUp bool) []string {
	s := ch.Scopes()
	if len(s) == 0 && t.prm != nil {
		s = slices.Clone(t.prm.ScopesSupported)
	}
	if stepUp {
		s = union(t.scopes, s)
	}
	if _, ok := t.cfg.Grant.(*AuthorizationCode); ok && len(s) > 0 && supports(t.as.ScopesSupported, "offline_access") {
		s = union(s, []string{"offline_access"})
	}
	return s
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, v := range b {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
