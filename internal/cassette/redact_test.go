package cassette_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// fake returns n characters of alphabet, the same on every run: the
// secrets of these tests are made, not written, so that no scanner takes
// this file for a leak.
func fake(alphabet string, n int, seed uint64) string {
	r := rand.New(rand.NewPCG(seed, seed*7+1))
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

const (
	alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	lower = "abcdefghijklmnopqrstuvwxyz"
	hexa  = "0123456789abcdef"
)

func redactor(t *testing.T, extra *cassette.Redaction) *cassette.Redactor {
	t.Helper()
	r, err := cassette.NewRedactor(extra)
	require.NoError(t, err)
	return r
}

// Item: member names are split into words and matched as words.
func TestRedactionNames(t *testing.T) {
	secret := []string{"token", "githubToken", "GITHUB_TOKEN", "apiToken", "api_key", "apiKey", "X-Api-Key", "APIKEY",
		"dbPassword", "db_password", "DB-PASSWORD", "secretKey", "SecretAccessKey", "AWS_SECRET_ACCESS_KEY", "sessionToken",
		"session_id", "pass", "passphrase", "passwd", "pwd", "client_secret", "clientSecret", "authorization", "Authorization",
		"auth", "authToken", "refresh_token", "idToken", "access-token", "privateKey", "private_key", "Set-Cookie", "cookie",
		"credentials", "credential", "com.example/token", "io.vendor/apiKey", "x.y/password", "mySecretValue", "dbpassword",
		"xsrftoken", "passwords", "otp", "signingKey", "encryption_key", "token2", "PASSWORD_HASH"}
	plain := []string{"", "name", "title", "passage", "author", "authority", "compass", "bypass", "keyboard", "key", "keys",
		"tokens", "tokens_used", "maxTokens", "max_tokens", "inputTokens", "token_type", "tokenCount", "token_url",
		"password_policy", "passwordHint", "secret_name", "secretRef", "api_key_id", "auth_type", "authMode", "progressToken",
		"pageToken", "nextToken", "nextCursor", "cursor", "description", "io.modelcontextprotocol/protocolVersion",
		"passed", "tokenizer", "uri", "mimeType", "secretary"}
	for _, n := range secret {
		assert.True(t, cassette.SecretName(n), "%q names a secret", n)
	}
	for _, n := range plain {
		assert.False(t, cassette.SecretName(n), "%q names no secret", n)
	}
	// Through a message: the word rule, and a value beside a secret name.
	r := redactor(t, nil)
	out := string(r.Message([]byte(`{"_meta":{"com.example/token":"t0ps3cr3t"},"headers":[{"name":"Authorization","value":"letmein99"}],"dbPassword":"hunter2","maxTokens":100,"passage":"a b c"}`)))
	for _, s := range []string{"t0ps3cr3t", "letmein99", "hunter2"} {
		assert.NotContains(t, out, s)
	}
	assert.Contains(t, out, `"maxTokens":100`)
	assert.Contains(t, out, `"passage":"a b c"`)
	// A tool's schema names its arguments: a "password" property is no value.
	schema := `{"inputSchema":{"type":"object","properties":{"password":{"type":"string","minLength":8}},"required":["password"]}}`
	assert.Equal(t, schema, string(r.Message([]byte(schema))))
}

// formats are secrets that only their format gives away: the list
// (beyond the formats redacted before), then those.
func formats() map[string]string {
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + fake(alnum+"+/", 64, 9) + "\n" + fake(alnum+"+/", 64, 10) + "\n-----END RSA PRIVATE KEY-----"
	return map[string]string{
		"google api key":      "AIza" + fake(alnum+"_-", 35, 1),
		"google oauth access": "ya29." + fake(alnum+"_-", 60, 2),
		"google oauth secret": "GOCSPX-" + fake(alnum+"_-", 28, 3),
		"aws asia":            "ASIA" + fake(upper, 16, 4),
		"slack app":           "xapp-1-A" + fake("ABCDEFGHIJ0123456789", 10, 5) + "-1234567890123-" + fake(hexa, 64, 6),
		"slack config":        "xoxe-1-" + fake("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 146, 7),
		"slack webhook":       "https://hooks.slack.com/services/T" + fake("ABCDEFGHIJ0123456789", 8, 8) + "/B" + fake("ABCDEFGHIJ0123456789", 8, 11) + "/" + fake(alnum, 24, 12),
		"stripe webhook":      "whsec_" + fake(alnum, 32, 13),
		"hugging face":        "hf_" + fake(lower, 34, 14),
		"gitlab":              "glpat-" + fake(alnum+"_-", 20, 15),
		"npm":                 "npm_" + fake(alnum, 36, 16),
		"pem private key":     pem,
		"basic credentials":   "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+fake(alnum, 12, 17))),
		"password in a url":   "postgres://admin:" + fake(alnum, 14, 18) + "@db.internal:5432/app",
		"api_key in a query":  "https://api.example.com/v1/data?q=dune&api_key=" + fake(alnum, 24, 19) + "&page=2",
		"bearer":              "Bearer " + fake(alnum, 30, 20),
		"jwt":                 "eyJhbGciOiJIUzI1NiJ9." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"`+fake(alnum, 12, 21)+`"}`)) + "." + fake(alnum+"_-", 43, 22),
		"aws akia":            "AKIA" + fake(upper, 16, 23),
		"github pat":          "ghp_" + fake(alnum, 36, 24),
		"github fine-grained": "github_pat_" + fake(alnum, 22, 25) + "_" + fake(alnum, 59, 26),
		"openai":              "sk-proj-" + fake(alnum, 74, 27) + "T3BlbkFJ" + fake(alnum, 74, 28),
		"openai, short":       "sk-" + fake(alnum, 40, 33),
		"slack bot":           "xoxb-" + fake("0123456789", 12, 29) + "-" + fake("0123456789", 12, 30) + "-" + fake(alnum, 24, 31),
		"stripe live":         "sk_live_" + fake(alnum, 24, 32),
	}
}

// secretPart is what must not survive of a format's sample: the whole,
// or for those that carry a visible part, the secret part.
func secretPart(kind, sample string) string {
	switch kind {
	case "basic credentials", "bearer":
		return sample[strings.IndexByte(sample, ' ')+1:]
	case "password in a url":
		return sample[len("postgres://admin:"):strings.IndexByte(sample, '@')]
	case "api_key in a query":
		i := strings.Index(sample, "api_key=") + len("api_key=")
		return sample[i : i+24]
	}
	return sample
}

// Item: the formats of a maintained scanner (gitleaks), and the protocol's.
func TestRedactionFormats(t *testing.T) {
	r := redactor(t, nil)
	for kind, sample := range formats() {
		t.Run(kind, func(t *testing.T) {
			msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "here it is: " + sample + " (keep it)"}}}})
			out := string(r.Message(msg))
			assert.NotContains(t, out, secretPart(kind, sample))
			assert.Contains(t, out, "here it is: ", "what is no secret is kept")
			assert.Contains(t, out, cassette.Placeholder)
		})
	}
	ids, err := cassette.GitleaksRules()
	require.NoError(t, err)
	assert.Greater(t, len(ids), 150, "gitleaks' rule set")
	// A secret in text escaped once more (a quoted string, JSON in a string).
	key := fake(lower+"0123456789", 32, 60)
	assert.NotContains(t, r.String(`No book titled "adafruit_api_key = \"`+key+`\"" here.`), key)
	// Ordinary text and ids are left alone.
	for _, s := range []string{"The quick brown fox jumps over the lazy dog.", "Frank Herbert", "books://Dune",
		"https://example.com/search?q=dune&page=2", "550e8400-e29b-41d4-a716-446655440000", "notifications/progress"} {
		assert.Equal(t, s, r.String(s))
	}
}

// Item: values under a secret name of any kind; duplicate members; base64;
// the server's identity; a --redact pattern never stored.
func TestRedactionValues(t *testing.T) {
	r := redactor(t, nil)
	out := string(r.Message([]byte(`{"password":{"user":"u","pw":"s3cr3t-obj"},"api_key":["s3cr3t-arr"],"pin":1,"token":918273645,"secret":true,"credentials":null,"auth":{}}`)))
	for _, s := range []string{"s3cr3t-obj", "s3cr3t-arr", "918273645"} {
		assert.NotContains(t, out, s)
	}
	assert.Contains(t, out, `"secret":true`, "a flag holds no secret")
	assert.Contains(t, out, `"credentials":null`)

	// A repeated member: a decoder sees the last, the bytes hold the first.
	dup := []byte(`{"jsonrpc":"2.0","id":1,"result":{"token":"s3cr3t-dup","token":""}}`)
	assert.NotContains(t, string(r.Message(dup)), "s3cr3t-dup")
	nested := []byte(`{"a":[{"b":{"x":1,"x":2}}],"token":""}`)
	assert.NotContains(t, string(r.Message(nested)), `"x":1`)

	// base64 of text that holds a secret.
	gh := "ghp_" + fake(alnum, 36, 40)
	blob := base64.StdEncoding.EncodeToString([]byte(`{"config":{"github":"` + gh + `"}}`))
	out = string(r.Message([]byte(`{"contents":[{"uri":"file:///c.json","blob":"` + blob + `"}]}`)))
	assert.NotContains(t, out, blob)
	blob2 := base64.StdEncoding.EncodeToString([]byte(`{"password":"hunter2"}`))
	assert.Equal(t, cassette.Placeholder, r.String(blob2))
	image := base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR binary"))
	assert.Equal(t, image, r.String(image), "a binary blob is kept")

	// The server's identity, as the header keeps it.
	info := r.Info(&cassette.Info{Name: "notes " + gh, Version: "1"})
	assert.NotContains(t, info.Name, gh)

	// A --redact pattern is applied, and never stored nor shown.
	lit, err := cassette.NewRedactor(&cassette.Redaction{Names: []string{"SSN"}, Patterns: []string{"hunter2"}})
	require.NoError(t, err)
	out = string(lit.Message([]byte(`{"note":"the password is hunter2","ssn":"078-05-1120"}`)))
	assert.NotContains(t, out, "hunter2")
	assert.NotContains(t, out, "078-05-1120")
	stored := (&cassette.Redaction{Names: []string{"SSN"}, Patterns: []string{"hunter2"}}).Stored()
	b, _ := json.Marshal(stored)
	assert.JSONEq(t, `{"names":["SSN"],"withheld":1}`, string(b))
	assert.NotContains(t, lit.Summary(), "hunter2")
	assert.Contains(t, lit.Summary(), "--redact pattern #1")
	_, err = cassette.NewRedactor(&cassette.Redaction{Patterns: []string{`(hunter2`}})
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
	_, err = cassette.NewRedactor(&cassette.Redaction{Patterns: []string{`x*`}})
	assert.ErrorContains(t, err, "matches the empty string")
	_, err = cassette.NewRedactor(&cassette.Redaction{Names: []string{" "}})
	assert.ErrorContains(t, err, "empty member name")

	// A message with nothing secret is returned as it is, byte for byte.
	plain := []byte(`{"jsonrpc":"2.0","id":2,"result":{ "content":[] }}`)
	assert.Equal(t, string(plain), string(r.Message(plain)))
}

// Item: a placeholder reveals nothing: the same for every secret, derived
// from none, so no guess can be tested against it; a live request matches
// a recorded one by its shape.
func TestPlaceholder(t *testing.T) {
	t.Setenv("MCPTEST_CASSETTE_KEY", "") // no key, and none needed
	r := redactor(t, nil)
	a := string(r.Message([]byte(`{"password":"password1"}`)))
	b := string(r.Message([]byte(`{"password":"correct horse battery staple"}`)))
	assert.Equal(t, a, b, "two secrets, one placeholder: nothing of either in it")
	assert.Equal(t, `{"password":"[redacted]"}`, a)

	// Recorded with one password, played to a request with another.
	c := &cassette.Cassette{Frames: []cassette.Frame{
		{Dir: cassette.ClientToServer, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"ann","password":"[redacted]"}}}`)},
		{Dir: cassette.ServerToClient, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"welcome"}]}}`)},
		// An older build's keyed placeholder still matches.
		{Dir: cassette.ClientToServer, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"login","arguments":{"user":"bob","password":"[redacted:3ddda7c114a0]"}}}`)},
		{Dir: cassette.ServerToClient, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"hi bob"}]}}`)},
	}}
	p, err := cassette.NewPlayer(c, cassette.PlayOptions{})
	require.NoError(t, err)
	conn := p.Conn()
	out, miss := conn.Answer([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"login","arguments":{"user":"ann","password":"another one"}}}`))
	require.Empty(t, miss)
	assert.Contains(t, string(out[0]), "welcome")
	out, miss = conn.Answer([]byte(`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"login","arguments":{"user":"bob","password":"s3cr3t"}}}`))
	require.Empty(t, miss)
	assert.Contains(t, string(out[0]), "hi bob")
	// A miss names the request, redacted.
	out, miss = conn.Answer([]byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"login","arguments":{"user":"cy","password":"s3cr3t-miss"}}}`))
	assert.NotEmpty(t, miss)
	assert.NotContains(t, miss+string(out[0]), "s3cr3t-miss")
}

// Item: replay redacts the live answer as the recording was before
// comparing, and shows no secret.
func TestReplayRedactsLive(t *testing.T) {
	gh := "ghp_" + fake(alnum, 36, 50)
	c := &cassette.Cassette{Frames: []cassette.Frame{
		{Dir: cassette.ClientToServer, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami"}}`)},
		{Dir: cassette.ServerToClient, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"token [redacted]"}],"structuredContent":{"token":"[redacted]"}}}`)},
		{Dir: cassette.ClientToServer, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fails"}}`)},
		{Dir: cassette.ServerToClient, Msg: json.RawMessage(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`)},
	}}
	p, err := cassette.NewPlayer(c, cassette.PlayOptions{})
	require.NoError(t, err)
	call := func(_ context.Context, method string, params json.RawMessage) (json.RawMessage, json.RawMessage, error) {
		if strings.Contains(string(params), "fails") {
			return nil, nil, &json.UnsupportedValueError{Str: "connection lost holding " + gh}
		}
		return json.RawMessage(`{"content":[{"type":"text","text":"token ` + gh + `"}],"structuredContent":{"token":"another-` + fake(alnum, 10, 51) + `"}}`), nil, nil
	}
	replayed, err := p.Replay(t.Context(), call, func(v any) ([]byte, error) { return json.Marshal(v) })
	require.NoError(t, err)
	require.Len(t, replayed, 2)
	assert.False(t, replayed[0].Differs(), "the same answer, its secrets redacted alike:\n%s\n%s", replayed[0].Want, replayed[0].Got)
	assert.True(t, replayed[1].Differs())
	for _, r := range replayed {
		assert.NotContains(t, string(r.Got), gh)
		for _, v := range r.Live {
			assert.NotContains(t, string(v), gh)
		}
	}
}
