package oauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
)

// DPoP (RFC 9449, SEP-1932): with Config.DPoPKey the client asks for tokens
// bound to that key, and proves it holds the key with a fresh signed proof
// on every token request and every MCP request, naming the request's method
// and URL (and, for an MCP request, the token's hash). A server may ask for
// a nonce of its own in the proofs ("use_dpop_nonce"): the request is sent
// once more with it. The proofs are signed by go-jose, not by hand.

// dpopProof returns a DPoP proof for method at target: nonce is the
// server's ("" for none), accessToken the token the request carries ("" at
// the token endpoint).
func (t *Transport) dpopProof(method, target, nonce, accessToken string) (string, error) {
	alg, err := jwsAlgorithm(t.cfg.DPoPKey)
	if err != nil {
		return "", fmt.Errorf("oauth: Config.DPoPKey: %w", err)
	}
	opts := (&jose.SignerOptions{EmbedJWK: true}).WithType("dpop+jwt")
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: cryptosigner.Opaque(t.cfg.DPoPKey)}, opts)
	if err != nil {
		return "", fmt.Errorf("oauth: DPoP proof: %w", err)
	}
	u, err := url.Parse(target)
	if err != nil {
		return "", fmt.Errorf("oauth: DPoP proof: %w", err)
	}
	u.RawQuery, u.Fragment = "", "" // htu has neither (RFC 9449 §4.2)
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	claims := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(jti), "htm": method, "htu": u.String(), "iat": t.now().Unix()}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("oauth: DPoP proof: %w", err)
	}
	return jws.CompactSerialize()
}

// tokenDPoP is the token type (and Authorization scheme) of a DPoP-bound
// token.
const tokenDPoP = "DPoP"

// isNonceChallenge reports whether an MCP server's 401 asks for the request
// again with its DPoP nonce (RFC 9449 §9), which came in DPoP-Nonce.
func isNonceChallenge(resp *http.Response) bool {
	if resp.Header.Get("DPoP-Nonce") == "" {
		return false
	}
	for _, ch := range resp.Header.Values("WWW-Authenticate") {
		if strings.Contains(ch, "use_dpop_nonce") {
			return true
		}
	}
	return false
}
