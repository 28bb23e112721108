package oauth

import (
	"fmt"
	"net/http"
	"strings"
)

// Challenge is one authentication challenge of a WWW-Authenticate header
// (RFC 9110 §11.6.1), for example
// `Bearer resource_metadata="https://mcp.example/.well-known/oauth-protected-resource", scope="files:read"`.
type Challenge struct {
	// Scheme is the auth scheme as sent ("Bearer"); compare it case-insensitively.
	Scheme string
	// Params holds the auth-params by lower-cased name, quoted strings unquoted.
	Params map[string]string
	// Token68 is the token68 form of the challenge, if the server used it instead of params.
	Token68 string
}

// Param returns the value of the named auth-param (case-insensitive), or "".
func (c Challenge) Param(name string) string { return c.Params[strings.ToLower(name)] }

// Scopes returns the space-separated "scope" auth-param as a list.
func (c Challenge) Scopes() []string { return strings.Fields(c.Param("scope")) }

// ParseChallenges parses every WWW-Authenticate header line in h into its
// challenges, in order. A header line that does not follow the RFC 9110
// grammar is an error naming the offending text.
func ParseChallenges(h http.Header) ([]Challenge, error) {
	var out []Challenge
	for _, line := range h.Values("WWW-Authenticate") {
		cs, err := parseChallengeLine(line)
		if err != nil {
			return out, fmt.Errorf("oauth: WWW-Authenticate %q: %w", line, err)
		}
		out = append(out, cs...)
	}
	return out, nil
}

// bearerChallenge returns the first Bearer challenge in h, if any. A header
// that fails to parse counts as having none: the status code alone still
// tells the transport what to do.
func bearerChallenge(h http.Header) (Challenge, bool) {
	cs, _ := ParseChallenges(h)
	for _, c := range cs {
		if strings.EqualFold(c.Scheme, "Bearer") {
			return c, true
		}
	}
	return Challenge{}, false
}

func isTchar(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", b) >= 0
}

func isToken68Char(b byte) bool {
	switch {
	case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9':
		return true
	}
	return strings.IndexByte("-._~+/", b) >= 0
}

type challengeScanner struct {
	s string
	i int
}

func (p *challengeScanner) skipSpace() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *challengeScanner) skipSeparators() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == ',') {
		p.i++
	}
}

func (p *challengeScanner) token() string {
	start := p.i
	for p.i < len(p.s) && isTchar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

func (p *challengeScanner) quoted() (string, error) {
	p.i++ // opening quote
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch c {
		case '"':
			p.i++
			return b.String(), nil
		case '\\':
			p.i++
			if p.i == len(p.s) {
				return "", fmt.Errorf("unterminated escape at end")
			}
			c = p.s[p.i]
		}
		b.WriteByte(c)
		p.i++
	}
	return "", fmt.Errorf("unterminated quoted string")
}

// token68 reads a token68 at the cursor and reports whether one was there:
// token68 chars then '=' padding, followed by the end, a comma or space.
func (p *challengeScanner) token68() (string, bool) {
	j := p.i
	for j < len(p.s) && isToken68Char(p.s[j]) {
		j++
	}
	if j == p.i {
		return "", false
	}
	for j < len(p.s) && p.s[j] == '=' {
		j++
	}
	k := j
	for k < len(p.s) && (p.s[k] == ' ' || p.s[k] == '\t') {
		k++
	}
	if k < len(p.s) && p.s[k] != ',' {
		return "", false
	}
	v := p.s[p.i:j]
	p.i = j
	return v, true
}

func parseChallengeLine(line string) ([]Challenge, error) {
	p := &challengeScanner{s: line}
	var out []Challenge
	for {
		p.skipSeparators()
		if p.i >= len(p.s) {
			return out, nil
		}
		scheme := p.token()
		if scheme == "" {
			return out, fmt.Errorf("expected an auth scheme at offset %d", p.i)
		}
		c := Challenge{Scheme: scheme, Params: map[string]string{}}
		p.skipSpace()
		// Either a token68, or auth-params until the next scheme.
		first := true
		for p.i < len(p.s) {
			save := p.i
			if first {
				// "Basic YWxhZGRpbg==": token68 chars and '=' padding, then the end or a comma.
				// An auth-param ("realm=...") has a value after its '=', so it never matches.
				if t, ok := p.token68(); ok {
					c.Token68 = t
					break
				}
				p.i = save
			}
			p.skipSeparators()
			name := p.token()
			p.skipSpace()
			if name == "" || p.i >= len(p.s) || p.s[p.i] != '=' {
				p.i = save // the next challenge's scheme
				break
			}
			p.i++ // '='
			p.skipSpace()
			var val string
			if p.i < len(p.s) && p.s[p.i] == '"' {
				v, err := p.quoted()
				if err != nil {
					return out, fmt.Errorf("param %s: %w", name, err)
				}
				val = v
			} else {
				val = p.token()
			}
			key := strings.ToLower(name)
			if _, dup := c.Params[key]; !dup {
				c.Params[key] = val
			}
			first = false
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] != ',' {
				return out, fmt.Errorf("expected ',' after param %s at offset %d", name, p.i)
			}
		}
		out = append(out, c)
	}
}
