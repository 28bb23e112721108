package cassette

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// KeyEnv names the key of the placeholders: set, a secret's placeholder
// depends on it, so that one who reads a cassette cannot test guesses of a
// secret against it without the key; unset, a fixed key is used, and the
// placeholders only hide the secrets.
const KeyEnv = "MCPTEST_CASSETTE_KEY"

// Redactor replaces secrets in messages with placeholders derived from them
// by a keyed hash, "[redacted:1a2b3c4d5e6f]": the same secret always gives
// the same placeholder, so a message redacted when recorded matches the
// same message redacted when replayed. A secret is the string value of a
// member whose name looks like one (token, password, secret, api_key,
// authorization, cookie, credential...), or a string matching a pattern of
// a well-known kind (a bearer token, a JWT, an AWS, GitHub, OpenAI, Slack or
// Stripe key).
type Redactor struct {
	key      []byte
	names    []*regexp.Regexp
	patterns []*regexp.Regexp

	mu    sync.Mutex
	count map[string]int // by what found it
}

// DefaultNames matches the names of members whose values are secrets.
const DefaultNames = `(?i)(^|[_-])(token|access[_-]?token|refresh[_-]?token|id[_-]?token|password|passwd|pwd|secret|client[_-]?secret|api[_-]?key|apikey|authorization|auth|cookie|set-cookie|credential|credentials|private[_-]?key|session[_-]?id)$`

// DefaultPatterns are the kinds of secret found anywhere in a string.
var DefaultPatterns = []string{
	`(?i)\bbearer\s+[A-Za-z0-9._~+/-]+=*`,
	`\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b`, // a JWT
	`\bAKIA[0-9A-Z]{16}\b`,                                           // AWS access key id
	`\bgh[pousr]_[A-Za-z0-9]{36,}\b`,                                 // GitHub
	`\bgithub_pat_[A-Za-z0-9_]{40,}\b`,                               // GitHub fine-grained
	`\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}\b`,                       // OpenAI, Anthropic
	`\bxox[abprs]-[A-Za-z0-9-]{10,}\b`,                               // Slack
	`\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b`,                       // Stripe
}

// Redaction is what a recording redacts beyond the defaults. A cassette's
// header keeps it, so that what is replayed later is redacted the same way
// and still matches.
type Redaction struct {
	Names    []string `json:"names,omitempty"`    // members whose string values are secrets (any case)
	Patterns []string `json:"patterns,omitempty"` // regular expressions of secrets found anywhere in a string
}

// NewRedactor returns a Redactor with the default names and patterns plus
// extra's (nil: none); key keys the placeholders (nil: the KeyEnv
// variable's, or a fixed one).
func NewRedactor(key []byte, extra *Redaction) (*Redactor, error) {
	r := &Redactor{key: key, names: []*regexp.Regexp{regexp.MustCompile(DefaultNames)}, count: map[string]int{}}
	if len(r.key) == 0 {
		r.key = []byte(os.Getenv(KeyEnv))
	}
	if len(r.key) == 0 {
		r.key = []byte("mcptestkit cassette")
	}
	patterns := slices.Clone(DefaultPatterns)
	if extra != nil {
		for _, n := range extra.Names {
			if strings.TrimSpace(n) == "" {
				return nil, errors.New("redaction: an empty member name")
			}
			r.names = append(r.names, regexp.MustCompile("(?i)^"+regexp.QuoteMeta(n)+"$"))
		}
		patterns = append(patterns, extra.Patterns...)
	}
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("redaction pattern %q: %v", p, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("redaction pattern %q matches the empty string: it would redact between every character", p)
		}
		r.patterns = append(r.patterns, re)
	}
	return r, nil
}

// Placeholder is what secret becomes.
func (r *Redactor) Placeholder(secret string) string {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(secret))
	return "[redacted:" + hex.EncodeToString(m.Sum(nil))[:12] + "]"
}

// Message returns msg with its secrets replaced; a message that is not
// JSON is returned as it is.
func (r *Redactor) Message(msg []byte) []byte {
	var v any
	if json.Unmarshal(msg, &v) != nil {
		return msg
	}
	changed := false
	v = r.value("", v, &changed)
	if !changed {
		return msg
	}
	return marshal(v, msg)
}

// String returns s with its secrets (by pattern) replaced.
func (r *Redactor) String(s string) string {
	for _, re := range r.patterns {
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			r.note("pattern " + re.String())
			return r.Placeholder(m)
		})
	}
	return s
}

func (r *Redactor) value(name string, v any, changed *bool) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = r.value(k, e, changed)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = r.value(name, e, changed)
		}
		return v
	case string:
		if r.secretName(name) && v != "" && !strings.HasPrefix(v, "[redacted:") {
			*changed = true
			r.note("member " + strings.ToLower(name))
			return r.Placeholder(v)
		}
		if s := r.String(v); s != v {
			*changed = true
			return s
		}
	}
	return v
}

func (r *Redactor) secretName(name string) bool {
	if name == "" {
		return false
	}
	for _, re := range r.names {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

func (r *Redactor) note(what string) {
	r.mu.Lock()
	r.count[what]++
	r.mu.Unlock()
}

// Summary says what was redacted, in one line: "redacted 3 secrets: 2 in
// members named token, 1 bearer token", or "" when nothing was.
func (r *Redactor) Summary() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	total := 0
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(r.count)) {
		n := r.count[k]
		total += n
		parts = append(parts, fmt.Sprintf("%d by %s", n, k))
	}
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("redacted %d secret(s): %s", total, strings.Join(parts, ", "))
}
