package servercheck

import (
	"net/http"
	"testing"
)

func TestChallengeParam(t *testing.T) {
	h := http.Header{"Www-Authenticate": {`Basic realm="x"`, `Bearer error="invalid_token", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp", scope="files:read \"q\" offline_access"`}}
	for name, want := range map[string]string{
		"resource_metadata": "https://a.example/.well-known/oauth-protected-resource/mcp",
		"scope":             `files:read "q" offline_access`,
		"realm":             "x",
		"missing":           "",
	} {
		if got := challengeParam(h, name); got != want {
			t.Errorf("challengeParam(%q) = %q, want %q", name, got, want)
		}
	}
	if got := challengeParam(http.Header{"Www-Authenticate": {`Bearer realm=mcp,scope=a`}}, "scope"); got != "a" {
		t.Errorf("a token value: got %q, want %q", got, "a")
	}
}
