package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// ResourceMetadata is OAuth 2.0 Protected Resource Metadata (RFC 9728): what
// an MCP server says about itself and which authorization servers it trusts.
type ResourceMetadata struct {
	// Resource is the protected resource's identifier, its canonical URL; it
	// must cover the MCP server's URL.
	Resource string `json:"resource"`
	// AuthorizationServers are the issuer URLs of the authorization servers the
	// resource trusts.
	AuthorizationServers []string `json:"authorization_servers,omitempty"`
	// ScopesSupported are the scopes the resource understands; the client
	// requests them when a challenge names none.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// BearerMethodsSupported are how a token may be presented: "header",
	// "body", "query".
	BearerMethodsSupported []string `json:"bearer_methods_supported,omitempty"`
	// ResourceName is a display name for the resource.
	ResourceName string `json:"resource_name,omitempty"`
}

// ServerMetadata is OAuth 2.0 Authorization Server Metadata (RFC 8414), or
// the same fields of an OpenID Connect discovery document.
type ServerMetadata struct {
	// Issuer is the authorization server's issuer URL, checked against the one
	// the metadata was fetched for.
	Issuer string `json:"issuer"`
	// AuthorizationEndpoint is where the user authorizes (authorization code
	// grant).
	AuthorizationEndpoint string `json:"authorization_endpoint,omitempty"`
	// TokenEndpoint issues and refreshes tokens.
	TokenEndpoint string `json:"token_endpoint,omitempty"`
	// RegistrationEndpoint accepts dynamic client registration (RFC 7591);
	// empty when unsupported.
	RegistrationEndpoint string `json:"registration_endpoint,omitempty"`
	// ScopesSupported are the scopes the server issues; "offline_access" among
	// them means refresh tokens can be asked for.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// ResponseTypesSupported are the authorization response types, such as
	// "code".
	ResponseTypesSupported []string `json:"response_types_supported,omitempty"`
	// GrantTypesSupported are the grants the token endpoint accepts.
	GrantTypesSupported []string `json:"grant_types_supported,omitempty"`
	// CodeChallengeMethodsSupported are the PKCE methods; without "S256" the
	// authorization code grant is refused.
	CodeChallengeMethodsSupported []string `json:"code_challenge_methods_supported,omitempty"`
	// TokenEndpointAuthMethodsSupported are how a client may authenticate at
	// the token endpoint ("client_secret_basic", "private_key_jwt", ...).
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported,omitempty"`
	// TokenEndpointAuthSigningAlgValuesSupported are the JWS algorithms
	// accepted for private_key_jwt.
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported,omitempty"`
	// ClientIDMetadataDocumentSupported: an https URL may serve as client_id
	// (SEP-991). Absent = false.
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported,omitempty"`
	// AuthorizationResponseIssParameterSupported: authorization responses carry
	// "iss" (RFC 9207), which must then match Issuer. Absent = false.
	AuthorizationResponseIssParameterSupported bool `json:"authorization_response_iss_parameter_supported,omitempty"`
}

// maxMetadataBytes bounds every JSON document read from a server: metadata
// and token responses are a few hundred bytes; anything huge is hostile.
const maxMetadataBytes = 1 << 20

// errNotFound marks a well-known location that does not hold the document,
// so discovery moves on to the next candidate.
var errNotFound = errors.New("not found")

// getJSON GETs u and decodes a JSON object into v. A non-200 status or a
// body that is not a JSON object wraps errNotFound: well-known paths are
// often answered by catch-all pages.
func getJSON(ctx context.Context, rt http.RoundTripper, u string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxMetadataBytes+1))
	if err != nil {
		return fmt.Errorf("GET %s: reading body: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: status %d: %w", u, resp.StatusCode, errNotFound)
	}
	if len(body) > maxMetadataBytes {
		return fmt.Errorf("GET %s: body larger than %d bytes", u, maxMetadataBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: not a JSON metadata document (%v): %w", u, err, errNotFound)
	}
	return nil
}

// checkSecureURL refuses URLs that would carry credentials in the clear:
// https is required, except for loopback hosts (local servers and tests).
func checkSecureURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("oauth: %s %q: %w", what, raw, err)
	}
	if u.Scheme == "https" && u.Host != "" {
		return u, nil
	}
	if u.Scheme == "http" && isLoopback(u.Hostname()) {
		return u, nil
	}
	return nil, fmt.Errorf("oauth: %s %q must be an https URL (http only for loopback hosts)", what, raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// origin returns scheme://host[:port] of u, lower-cased (RFC 3986 §6.2.2.1).
func origin(u *url.URL) string {
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}

// canonicalResource is the RFC 8707 resource identifier of an MCP server
// URL: no query or fragment, lower-case scheme and host, no trailing slash.
func canonicalResource(u *url.URL) string {
	return origin(u) + strings.TrimSuffix(u.EscapedPath(), "/")
}

// resourceCovers reports whether the protected resource identifier res
// covers the server URL: same origin and res's path is a path-segment
// prefix of the server's. RFC 9728 §3.3 requires the metadata's resource to
// match the resource the client asked about; a prefix admits metadata for
// the whole origin served from the root well-known location.
func resourceCovers(res string, server *url.URL) bool {
	r, err := url.Parse(res)
	if err != nil || r.Fragment != "" || r.Host == "" {
		return false
	}
	if origin(r) != origin(server) {
		return false
	}
	rp := strings.TrimSuffix(r.EscapedPath(), "/")
	sp := strings.TrimSuffix(server.EscapedPath(), "/")
	return rp == "" || sp == rp || strings.HasPrefix(sp, rp+"/")
}

// resourceMetadataURLs lists where to look for the protected resource
// metadata of server, in the order the MCP authorization spec gives: the URL
// from the WWW-Authenticate challenge, then the path-aware well-known URL,
// then the root well-known URL.
func resourceMetadataURLs(server *url.URL, fromChallenge string) []string {
	var out []string
	if fromChallenge != "" {
		out = append(out, fromChallenge)
	}
	base := origin(server) + "/.well-known/oauth-protected-resource"
	if p := strings.TrimSuffix(server.EscapedPath(), "/"); p != "" {
		out = append(out, base+p)
	}
	return append(out, base)
}

// serverMetadataURLs lists the RFC 8414 and OpenID Connect discovery URLs
// for issuer, in the MCP authorization spec's order. With a path component
// the well-known segment goes between host and path (RFC 8414 §3.1), and
// OIDC's path-appended form comes last.
func serverMetadataURLs(issuer *url.URL) []string {
	o := origin(issuer)
	p := strings.TrimSuffix(issuer.EscapedPath(), "/")
	if p == "" {
		return []string{
			o + "/.well-known/oauth-authorization-server",
			o + "/.well-known/openid-configuration",
		}
	}
	return []string{
		o + "/.well-known/oauth-authorization-server" + p,
		o + "/.well-known/openid-configuration" + p,
		o + p + "/.well-known/openid-configuration",
	}
}

// discoverResource finds and validates the protected resource metadata of
// server. It returns (nil, "", nil) when no location holds any: a server of
// the 2025-03-26 era, which is its own authorization server.
func discoverResource(ctx context.Context, rt http.RoundTripper, server *url.URL, fromChallenge string) (*ResourceMetadata, string, error) {
	if fromChallenge != "" {
		if _, err := checkSecureURL("resource_metadata URL", fromChallenge); err != nil {
			return nil, "", err
		}
	}
	var tried []string
	for _, u := range resourceMetadataURLs(server, fromChallenge) {
		var md ResourceMetadata
		err := getJSON(ctx, rt, u, &md)
		if errors.Is(err, errNotFound) {
			tried = append(tried, err.Error())
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("oauth: protected resource metadata: %w", err)
		}
		if !resourceCovers(md.Resource, server) {
			return nil, "", fmt.Errorf("%w: %s says resource %q, but the server is %s",
				ErrResourceMismatch, u, md.Resource, canonicalResource(server))
		}
		if len(md.AuthorizationServers) == 0 {
			return nil, "", fmt.Errorf("oauth: protected resource metadata at %s lists no authorization_servers", u)
		}
		return &md, u, nil
	}
	if fromChallenge != "" {
		// The server pointed at its metadata and it is not there: that is
		// broken, not a legacy server.
		return nil, "", fmt.Errorf("oauth: protected resource metadata advertised at %s not found (%s)", fromChallenge, strings.Join(tried, "; "))
	}
	return nil, "", nil
}

// sameIssuer compares issuer identifiers, tolerating only a trailing slash.
func sameIssuer(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// discoverServer fetches the authorization server metadata of issuer and
// checks its issuer field (RFC 8414 §3.3), so a server cannot pass off
// another's endpoints. legacy is the 2025-03-26 case where the issuer was
// not named by anyone but derived from the MCP server's origin: there the
// document's issuer only has to be on that same origin, and when no
// document exists the spec's default endpoints (/authorize, /token,
// /register at the origin) are used.
func discoverServer(ctx context.Context, rt http.RoundTripper, issuer string, legacy bool) (*ServerMetadata, error) {
	iu, err := checkSecureURL("authorization server", issuer)
	if err != nil {
		return nil, err
	}
	var tried []string
	for _, u := range serverMetadataURLs(iu) {
		var md ServerMetadata
		err := getJSON(ctx, rt, u, &md)
		if errors.Is(err, errNotFound) {
			tried = append(tried, err.Error())
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("oauth: authorization server metadata: %w", err)
		}
		if err := checkIssuer(&md, issuer, legacy, u); err != nil {
			return nil, err
		}
		for what, e := range map[string]string{
			"authorization_endpoint": md.AuthorizationEndpoint,
			"token_endpoint":         md.TokenEndpoint,
			"registration_endpoint":  md.RegistrationEndpoint,
		} {
			if e == "" {
				continue
			}
			if _, err := checkSecureURL(what, e); err != nil {
				return nil, err
			}
		}
		if md.TokenEndpoint == "" {
			return nil, fmt.Errorf("oauth: authorization server metadata at %s has no token_endpoint", u)
		}
		return &md, nil
	}
	if !legacy {
		return nil, fmt.Errorf("oauth: no authorization server metadata for %s (%s)", issuer, strings.Join(tried, "; "))
	}
	o := origin(iu)
	return &ServerMetadata{
		Issuer:                iu.String(),
		AuthorizationEndpoint: o + "/authorize",
		TokenEndpoint:         o + "/token",
		RegistrationEndpoint:  o + "/register",
		// 2025-03-26 makes PKCE mandatory for every client and server.
		CodeChallengeMethodsSupported: []string{"S256"},
	}, nil
}

func checkIssuer(md *ServerMetadata, issuer string, legacy bool, from string) error {
	if sameIssuer(md.Issuer, issuer) {
		return nil
	}
	if legacy {
		mu, err := url.Parse(md.Issuer)
		iu, _ := url.Parse(issuer)
		if err == nil && mu.Host != "" && origin(mu) == origin(iu) {
			return nil
		}
	}
	return fmt.Errorf("%w: metadata at %s names issuer %q, expected %q", ErrIssuerMismatch, from, md.Issuer, issuer)
}

// supports reports whether list contains v; an absent list supports
// nothing, except where the caller applies the RFC 8414 defaults.
func supports(list []string, v string) bool { return slices.Contains(list, v) }
