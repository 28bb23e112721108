package oauth_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/oauth"
)

// dpopClaims verifies a DPoP proof with the key it embeds (go-jose) and
// returns its claims; the test fails on a malformed or badly signed one.
func dpopClaims(t *testing.T, proof string) map[string]any {
	t.Helper()
	jws, err := jose.ParseSigned(proof, []jose.SignatureAlgorithm{jose.ES256})
	require.NoError(t, err, "a DPoP proof is a compact JWS")
	require.Len(t, jws.Signatures, 1)
	h := jws.Signatures[0].Header
	assert.Equal(t, "dpop+jwt", h.ExtraHeaders["typ"])
	require.NotNil(t, h.JSONWebKey, "the proof embeds its public key")
	assert.True(t, h.JSONWebKey.IsPublic())
	payload, err := jws.Verify(h.JSONWebKey)
	require.NoError(t, err, "the proof verifies with the key it embeds")
	var claims map[string]any
	require.NoError(t, json.Unmarshal(payload, &claims))
	return claims
}

// Issue 32 (SEP-1932, RFC 9449): with Config.DPoPKey the token request
// carries a proof, the token is used with the DPoP scheme and a fresh proof
// per request (its hash in ath), and a server's nonce is honoured, at the
// authorization server and at the MCP server, with one retry each.
func TestDPoP(t *testing.T) {
	as, m := setup(t, func(a *authServer) {
		a.authMethods, a.preClientID, a.preSecret = []string{"client_secret_basic"}, "dpop-client", "dpop-secret"
	}, nil)
	var mu sync.Mutex
	var tokenProofs, mcpProofs []map[string]any
	const asNonce, rsNonce = "as-nonce-1", "rs-nonce-1"

	inner := as.srv.Config.Handler
	as.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.URL.Path, "/token") {
			inner.ServeHTTP(w, r)
			return
		}
		claims := dpopClaims(t, r.Header.Get("DPoP"))
		mu.Lock()
		tokenProofs = append(tokenProofs, claims)
		mu.Unlock()
		assert.Equal(t, "POST", claims["htm"])
		assert.Equal(t, as.srv.URL+"/token", claims["htu"])
		if claims["nonce"] != asNonce {
			w.Header().Set("DPoP-Nonce", asNonce)
			oauthError(w, 400, "use_dpop_nonce", "a nonce is required")
			return
		}
		rec := httptest.NewRecorder()
		inner.ServeHTTP(rec, r)
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		body["token_type"] = "DPoP"
		writeJSON(w, rec.Code, body)
	})

	mcpInner := m.srv.Config.Handler
	m.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, dpop := strings.CutPrefix(r.Header.Get("Authorization"), "DPoP ")
		if !dpop || !strings.HasPrefix(r.URL.Path, "/mcp") {
			mcpInner.ServeHTTP(w, r)
			return
		}
		claims := dpopClaims(t, r.Header.Get("DPoP"))
		mu.Lock()
		mcpProofs = append(mcpProofs, claims)
		mu.Unlock()
		sum := sha256.Sum256([]byte(tok))
		assert.Equal(t, base64.RawURLEncoding.EncodeToString(sum[:]), claims["ath"], "the proof names the token")
		assert.Equal(t, m.URL(), claims["htu"])
		if claims["nonce"] != rsNonce {
			w.Header().Set("DPoP-Nonce", rsNonce)
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="a nonce is required"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r2 := r.Clone(r.Context())
		r2.Body = io.NopCloser(bytes.NewReader(body))
		r2.Header.Set("Authorization", "Bearer "+tok)
		mcpInner.ServeHTTP(w, r2)
	})

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tr, c := newTransport(t, oauth.Config{ClientID: "dpop-client", ClientSecret: "dpop-secret", Grant: &oauth.ClientCredentials{}, DPoPKey: key})
	mustCall(t, c, m.URL(), "tools/list")
	mustCall(t, c, m.URL(), "tools/call")

	tok, ok := tr.Token()
	require.True(t, ok)
	assert.Equal(t, "DPoP", tok.TokenType)
	require.Len(t, tokenProofs, 2, "the token request, and once more with the nonce")
	assert.Nil(t, tokenProofs[0]["nonce"])
	assert.Equal(t, asNonce, tokenProofs[1]["nonce"])
	require.Len(t, mcpProofs, 3, "tools/list refused for the nonce, tools/list and tools/call with it")
	assert.Equal(t, rsNonce, mcpProofs[2]["nonce"])
	jtis := map[any]bool{}
	for _, p := range append(tokenProofs, mcpProofs...) {
		assert.False(t, jtis[p["jti"]], "a fresh proof each request")
		jtis[p["jti"]] = true
	}
}
