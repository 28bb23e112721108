package servercheck

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcptestkit/mcptestkit/client/transport"
)

// httpAuthorization reads what a server that asks for authorization says
// to a client that has none: the 401, its WWW-Authenticate challenge and
// the Protected Resource Metadata it points to (RFC 9728). No
// authorization server is needed: the checks only read what the MCP server
// publishes, and send a token no authorization server issued.
func (c *state) httpAuthorization() {
	cn := c.main()
	tr, ok := cn.tap.inner.(*transport.StreamableHTTP)
	if !ok {
		c.skipf("the server is not reached over streamable HTTP: these checks are of that transport")
	}
	body, set := httpPing, map[string]string{}
	if cn.modern() {
		body = `{"jsonrpc":"2.0","id":"` + rawPrefix + `auth","method":"server/discover","params":` + annotationJSON(modernMeta()) + `}`
		set["Mcp-Method"] = "server/discover"
	}
	set["Authorization"] = "" // none, whatever the dialer's transport adds
	none := c.send(tr, cn, http.MethodPost, body, set)
	if none.status != http.StatusUnauthorized {
		c.skipf("a request without an Authorization header got %s, not 401: the server asks for no authorization "+
			"(or the dialer's HTTP client adds its credentials)", none)
	}
	const spec = "(basic/authorization: "
	set["Authorization"] = "Bearer mcptestkit-check-made-up-token"
	if bad := c.send(tr, cn, http.MethodPost, body, set); bad.status != http.StatusUnauthorized {
		c.breakf("sent %s with Authorization: Bearer mcptestkit-check-made-up-token, a token no authorization server issued; got %s\n"+
			"expected: HTTP 401 Unauthorized %s\"Token Handling\": invalid or expired tokens MUST receive a HTTP 401 response)", body, bad, spec)
	}

	pointer, scope := challengeParam(none.header, "resource_metadata"), challengeParam(none.header, "scope")
	if slices.Contains(strings.Fields(scope), "offline_access") {
		c.warnf("the 401's WWW-Authenticate challenge asks for scope %q, offline_access among them\nexpected: no offline_access "+
			"%s\"Refresh Tokens\": refresh tokens are not a resource requirement; SHOULD NOT)", scope, spec)
	}
	if none.url == nil {
		c.skipf("where the request went is not known: the Protected Resource Metadata cannot be looked for")
	}
	var candidates []string
	if pointer != "" {
		candidates = append(candidates, pointer)
	}
	candidates = append(candidates, wellKnownMetadata(none.url)...)
	var prm *resourceMetadata
	var tried []string
	for _, u := range candidates {
		md, got, err := c.fetchMetadata(u)
		if err != nil {
			c.skipf("the server answered 401; fetching its Protected Resource Metadata at %s failed: %v", u, err)
		}
		tried = append(tried, u+": "+got)
		if md != nil {
			prm = md
			break
		}
		if u == pointer {
			c.breakf("the 401's WWW-Authenticate names resource_metadata %q; a GET of it got %s\nexpected: the Protected "+
				"Resource Metadata document (RFC 9728) %s\"Authorization Server Location\": MCP servers MUST implement it)", u, got, spec)
		}
	}
	if prm == nil {
		c.breakf("the server answered 401 to a request without credentials (WWW-Authenticate: %q), and no Protected Resource "+
			"Metadata was found: %s\nexpected: a resource_metadata parameter in the WWW-Authenticate challenge, or the metadata at "+
			"a well-known URI %s\"Protected Resource Metadata Discovery Requirements\": MCP servers MUST implement one of the "+
			"two, so that a client can find the authorization server)", none.header.Values("WWW-Authenticate"), strings.Join(tried, "; "), spec)
		return
	}
	if len(prm.AuthorizationServers) == 0 {
		c.breakf("the Protected Resource Metadata (%s) names no authorization_servers\nexpected: at least one %s\"Authorization "+
			"Server Location\": the document MUST include the authorization_servers field containing at least one authorization server)", tried[len(tried)-1], spec)
	}
	if slices.Contains(prm.ScopesSupported, "offline_access") {
		c.warnf("the Protected Resource Metadata's scopes_supported lists offline_access (%q)\nexpected: no offline_access "+
			"%s\"Refresh Tokens\": refresh tokens are not a resource requirement; SHOULD NOT)", prm.ScopesSupported, spec)
	}
}

// wellKnownMetadata is where RFC 9728 puts the metadata of the resource at
// u: the well-known path with u's path after it, then at the root.
func wellKnownMetadata(u *url.URL) []string {
	base := url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/.well-known/oauth-protected-resource"}
	out := []string{}
	if p := strings.TrimSuffix(u.Path, "/"); p != "" {
		withPath := base
		withPath.Path += p
		out = append(out, withPath.String())
	}
	return append(out, base.String())
}

// fetchMetadata GETs a Protected Resource Metadata document: the document,
// or nil and what came back instead; err when nothing answered.
func (c *state) fetchMetadata(u string) (*resourceMetadata, string, error) {
	ctx, cancel := c.ctx()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "not a URL: " + err.Error(), nil
	}
	resp, err := metadataClient.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	got := fmt.Sprintf("HTTP %d %s", resp.StatusCode, cut(strings.TrimSpace(string(b)), 200))
	if resp.StatusCode != http.StatusOK {
		return nil, got, nil
	}
	var md resourceMetadata
	if err := json.Unmarshal(b, &md); err != nil {
		return nil, got + " (not JSON: " + err.Error() + ")", nil
	}
	return &md, got, nil
}

// metadataClient fetches the public metadata documents: the transport's own
// HTTP client is for the MCP endpoint alone. It follows no redirect: a
// document is served where it is named.
var metadataClient = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// resourceMetadata is what the checks read of a Protected Resource Metadata
// document (RFC 9728).
type resourceMetadata struct {
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported"`
}

// authParam matches one auth-param of a WWW-Authenticate challenge (RFC
// 9110 11.6.1): a name, and a token or a quoted string.
var authParam = regexp.MustCompile(`(?i)(?:^|[\s,])([a-z0-9_!#$%&'*+.^|~-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^\s,]+)`)

// challengeParam returns the first auth-param called name in the
// WWW-Authenticate headers of h, unquoted ("" when there is none). The
// package's own parser would make servercheck depend on client/oauth and
// its JOSE library, which a server's tests have no use for.
func challengeParam(h http.Header, name string) string {
	for _, v := range h.Values("WWW-Authenticate") {
		for _, m := range authParam.FindAllStringSubmatch(v, -1) {
			if !strings.EqualFold(m[1], name) {
				continue
			}
			if val := m[2]; strings.HasPrefix(val, `"`) {
				return strings.NewReplacer(`\"`, `"`, `\\`, `\`).Replace(val[1 : len(val)-1])
			}
			return m[2]
		}
	}
	return ""
}
