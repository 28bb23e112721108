package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/cryptosigner"
)

// ParsePrivateKey parses a PEM-encoded private key (PKCS #8, SEC 1 "EC
// PRIVATE KEY" or PKCS #1 "RSA PRIVATE KEY") for [Config.PrivateKey].
func ParsePrivateKey(pemBytes []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil {
		return nil, errors.New("oauth: private key: no PEM block found")
	}
	var key any
	var err error
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("oauth: private key: unsupported PEM block type %q", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("oauth: private key: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("oauth: private key: %T cannot sign", key)
	}
	if _, err := jwsAlgorithm(s); err != nil {
		return nil, err
	}
	return s, nil
}

// jwsAlgorithm picks the JWS "alg" (RFC 7518) for a key.
func jwsAlgorithm(key crypto.Signer) (string, error) {
	switch pub := key.Public().(type) {
	case *ecdsa.PublicKey:
		switch pub.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
		return "", fmt.Errorf("oauth: private key: unsupported ECDSA curve %s", pub.Curve.Params().Name)
	case *rsa.PublicKey:
		return "RS256", nil
	case ed25519.PublicKey:
		return "EdDSA", nil
	}
	return "", fmt.Errorf("oauth: private key: unsupported key type %T", key.Public())
}

// signJWT returns the compact JWS of claims signed with key, by go-jose.
func signJWT(key crypto.Signer, keyID string, claims map[string]any) (string, error) {
	alg, err := jwsAlgorithm(key)
	if err != nil {
		return "", err
	}
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if keyID != "" {
		opts = opts.WithHeader("kid", keyID)
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.SignatureAlgorithm(alg), Key: cryptosigner.Opaque(key)}, opts)
	if err != nil {
		return "", fmt.Errorf("oauth: signing %s assertion: %w", alg, err)
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", fmt.Errorf("oauth: signing %s assertion: %w", alg, err)
	}
	return jws.CompactSerialize()
}

// clientAssertion builds the private_key_jwt client assertion (RFC 7523
// §2.2, as profiled by RFC 7521 and SEP-1046): issued by and about the
// client, for the authorization server's issuer identifier, short-lived
// and single-use.
func clientAssertion(key crypto.Signer, keyID, clientID, audience string, now time.Time) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	return signJWT(key, keyID, map[string]any{
		"iss": clientID,
		"sub": clientID,
		"aud": audience,
		"iat": now.Unix(),
		"exp": now.Add(5 * time.Minute).Unix(),
		"jti": base64.RawURLEncoding.EncodeToString(jti),
	})
}
