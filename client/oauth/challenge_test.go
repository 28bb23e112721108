package oauth_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/oauth"
)

func TestParseChallenges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header []string
		want   []oauth.Challenge
	}{
		{"bearer with params", []string{`Bearer realm="mcp", scope="a b", resource_metadata="https://x.example/.well-known/oauth-protected-resource"`},
			[]oauth.Challenge{{Scheme: "Bearer", Params: map[string]string{"realm": "mcp", "scope": "a b",
				"resource_metadata": "https://x.example/.well-known/oauth-protected-resource"}}}},
		{"token values, odd spacing, upper-case names", []string{`Bearer   ERROR = insufficient_scope ,scope="x"`},
			[]oauth.Challenge{{Scheme: "Bearer", Params: map[string]string{"error": "insufficient_scope", "scope": "x"}}}},
		{"two challenges in one line", []string{`Basic realm="a", Bearer error="invalid_token", error_description="expired \"now\""`},
			[]oauth.Challenge{
				{Scheme: "Basic", Params: map[string]string{"realm": "a"}},
				{Scheme: "Bearer", Params: map[string]string{"error": "invalid_token", "error_description": `expired "now"`}},
			}},
		{"token68 then another challenge", []string{`Negotiate YWJj==, Bearer`},
			[]oauth.Challenge{
				{Scheme: "Negotiate", Params: map[string]string{}, Token68: "YWJj=="},
				{Scheme: "Bearer", Params: map[string]string{}},
			}},
		{"several header lines", []string{`Bearer`, `DPoP algs="ES256"`},
			[]oauth.Challenge{{Scheme: "Bearer", Params: map[string]string{}}, {Scheme: "DPoP", Params: map[string]string{"algs": "ES256"}}}},
		{"duplicate param keeps the first", []string{`Bearer scope="a", scope="b"`},
			[]oauth.Challenge{{Scheme: "Bearer", Params: map[string]string{"scope": "a"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, v := range tc.header {
				h.Add("WWW-Authenticate", v)
			}
			got, err := oauth.ParseChallenges(h)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseChallengesErrors(t *testing.T) {
	for _, bad := range []string{`Bearer scope="unterminated`, `Bearer a=b c`, `="x"`} {
		h := http.Header{"Www-Authenticate": {bad}}
		_, err := oauth.ParseChallenges(h)
		assert.ErrorContains(t, err, fmt.Sprintf("%q", bad), "the error names the header")
	}
}

func TestChallengeAccessors(t *testing.T) {
	c := oauth.Challenge{Scheme: "Bearer", Params: map[string]string{"scope": " a  b "}}
	assert.Equal(t, []string{"a", "b"}, c.Scopes())
	assert.Equal(t, " a  b ", c.Param("SCOPE"))
	assert.Empty(t, c.Param("error"))
}
