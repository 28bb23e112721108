package cassette

import (
	"strings"
	"unicode"
)

// The rule for member names. A name is split into words (camelCase,
// PascalCase, snake_case, kebab-case, dots, slashes: "com.example/apiToken"
// is com, example, api, token) and names a secret when:
//   - one word is a secret word (token, password, pass, passphrase, secret,
//     credential(s), cookie, auth, authorization, apikey, ...), or ends with
//     one when written fused ("dbpassword", "xsrftoken"), or two words make
//     one (api key, private key, access key, session id, ...);
//   - and no word after it says the value is about the secret rather than
//     the secret itself (token_type, tokenCount, password_policy,
//     secret_name, token_url, api_key_id...);
//   - and it is not the protocol's or a pager's (progressToken, pageToken,
//     nextToken: ids chosen in the open, not secrets).
//
// Plural "tokens" is no secret word: in MCP and LLM APIs it counts
// (maxTokens, tokens_used, input_tokens); "passwords", "secrets" and
// "credentials" are. Words are compared whole, so "passage", "author",
// "compass" and "keyboard" are not secrets.
var (
	secretWords = words("token password passwd pwd pass passphrase passcode secret secrets credential credentials creds " +
		"cookie cookies authorization auth apikey apikeys privatekey accesskey secretkey sessionid sessiontoken " +
		"passwords bearer otp mfa")
	// fused: a single word ending with one of these names a secret ("dbpassword").
	fusedSuffixes = []string{"token", "password", "passwd", "secret", "apikey", "privatekey", "accesskey", "secretkey", "passphrase", "credentials", "cookie"}
	secretPairs   = map[[2]string]bool{
		{"api", "key"}: true, {"private", "key"}: true, {"access", "key"}: true, {"secret", "key"}: true,
		{"signing", "key"}: true, {"encryption", "key"}: true, {"master", "key"}: true, {"account", "key"}: true,
		{"session", "id"}: true, {"client", "secret"}: true, {"license", "key"}: true,
	}
	// descriptors: after the secret word, they make the name one of a
	// property of the secret, not of the secret.
	descriptors = words("count counts type types kind limit limits max min usage used length len size expires expiry " +
		"expiration ttl url uri endpoint path file filename name names hint policy required format mode header ref id ids " +
		"field env var provider enabled set present valid status version prefix scheme method location source label " +
		"description rate strength rules")
	// public: words before "token" that make it an id chosen in the open.
	public = words("progress page next continuation pagination sync cancellation")
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// nameWords splits a member name into lower-case words.
func nameWords(name string) []string {
	var out []string
	rs := []rune(name)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)): // apiKey, v2Token
			flush(i)
			start = i
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]): // APIKey
			flush(i)
			start = i
		case unicode.IsDigit(r) != unicode.IsDigit(prev): // token2, s3key
			flush(i)
			start = i
		}
	}
	flush(len(rs))
	return out
}

// SecretName reports whether a member named name holds a secret by the
// default rule (see the comment on the rule above).
func SecretName(name string) bool {
	ws := nameWords(name)
	for i, w := range ws {
		n := 0 // how many words make the secret
		switch {
		case i+1 < len(ws) && secretPairs[[2]string{w, ws[i+1]}]:
			n = 2
		case secretWords[w]:
			n = 1
		default:
			for _, s := range fusedSuffixes {
				if strings.HasSuffix(w, s) && len(w) > len(s) {
					n = 1
					break
				}
			}
		}
		if n == 0 {
			continue
		}
		if w == "token" && i > 0 && public[ws[i-1]] {
			continue
		}
		described := false
		for _, after := range ws[i+n:] {
			if descriptors[after] {
				described = true
				break
			}
		}
		if !described {
			return true
		}
	}
	return false
}
