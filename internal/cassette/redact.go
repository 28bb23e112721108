package cassette

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Placeholder is what every secret becomes. It is the same for every
// secret, derived from none: a cassette reveals that a secret was there and
// nothing else, and offers an offline guesser nothing to test a guess
// against (a hash of the secret would, however it is keyed: a default key
// is public, and a key kept aside must be shared with everyone who replays).
// A live request matches a recorded one by its shape: the same members,
// with placeholders where the secrets were.
const Placeholder = "[redacted]"

// Protection says what protects a recorded cassette, for record to tell
// the one who will commit it.
const Protection = "every secret a rule found (members named like token or password, gitleaks' formats, " +
	"Authorization values, passwords in URLs) is written as " + Placeholder + ", the same for all and derived from none: " +
	"no key protects the file, and nothing in it can be tested against a guess. What no rule matched is written " +
	"as it passed: read the file before committing it (--redact-name and --redact add rules)."

// legacy are the keyed-hash placeholders of earlier builds: they read as
// Placeholder, so that older cassettes still match.
var legacy = regexp.MustCompile(`\[redacted:[0-9a-f]{12}\]`)

// Redactor replaces the secrets in messages with [Placeholder]. A secret is
//   - the value of a member whose name says it is one (see [SecretName]; a
//     string, number, object or array: all of it), or the "value" beside a
//     "name" or "key" that says so ({"name":"Authorization","value":...});
//   - a string, or the part of one, that gitleaks' rules find (see
//     scanner.go), or an Authorization value, a password in a URL, a query
//     parameter named like a secret;
//   - a base64 string whose decoded text holds one of those;
//   - what matches a pattern or member name given in a [Redaction].
type Redactor struct {
	names    map[string]bool  // extra member names, lower case
	patterns []*regexp.Regexp // extra patterns
	rules    *ruleSet

	mu    sync.Mutex
	count map[string]int // by what found it
}

// Redaction is what a recording redacts beyond the defaults. A cassette's
// header keeps the names, so that what is replayed later is redacted the
// same way; never the patterns, for a pattern may be the secret itself
// (--redact hunter2): [Redaction.Stored] is what the header gets.
type Redaction struct {
	Names    []string `json:"names,omitempty"`    // members whose values are secrets (any case)
	Patterns []string `json:"patterns,omitempty"` // regular expressions of secrets found anywhere in a string (not written by this build)
	Withheld int      `json:"withheld,omitempty"` // how many patterns the recording applied and did not store
}

// Stored is the Redaction as a cassette's header keeps it: the names, and
// how many patterns were left out.
func (x *Redaction) Stored() *Redaction {
	if x == nil || (len(x.Names) == 0 && len(x.Patterns) == 0 && x.Withheld == 0) {
		return nil
	}
	return &Redaction{Names: x.Names, Withheld: x.Withheld + len(x.Patterns)}
}

// NewRedactor returns a Redactor with the default rules plus extra's (nil:
// none).
func NewRedactor(extra *Redaction) (*Redactor, error) {
	rules, err := loadRules()
	if err != nil {
		return nil, err
	}
	r := &Redactor{names: map[string]bool{}, rules: rules, count: map[string]int{}}
	if extra != nil {
		for _, n := range extra.Names {
			if strings.TrimSpace(n) == "" {
				return nil, errors.New("redaction: an empty member name")
			}
			r.names[strings.ToLower(n)] = true
		}
		for i, p := range extra.Patterns {
			// The pattern is not quoted in errors: it may be the secret.
			re, err := regexp.Compile(p)
			if err != nil {
				return nil, fmt.Errorf("redaction pattern #%d: %v", i+1, strings.ReplaceAll(err.Error(), p, "…"))
			}
			if re.MatchString("") {
				return nil, fmt.Errorf("redaction pattern #%d matches the empty string: it would redact between every character", i+1)
			}
			r.patterns = append(r.patterns, re)
		}
	}
	return r, nil
}

// Message returns msg with its secrets replaced. Whatever it finds, it
// never returns bytes that hold what it did not see: a message whose
// objects repeat a member (where a decoder sees only the last, and a
// secret may hide in the first) is written anew from what was decoded. A
// message that is not JSON is returned with its secrets (by format)
// replaced.
func (r *Redactor) Message(msg []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(msg))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return []byte(r.String(string(msg)))
	}
	changed := false
	v = r.value("", v, &changed)
	if !changed && !duplicates(msg) {
		return msg
	}
	return marshal(v, []byte(`null`)) // never the original bytes
}

// Value returns v, generic JSON, with its secrets replaced.
func (r *Redactor) Value(v any) any {
	changed := false
	return r.value("", v, &changed)
}

// Info returns a copy of a server's name and version, secrets replaced:
// the header of a cassette is as public as its messages.
func (r *Redactor) Info(i *Info) *Info {
	if i == nil {
		return nil
	}
	return &Info{Name: r.String(i.Name), Version: r.String(i.Version)}
}

// String returns s with its secrets (by format) replaced.
func (r *Redactor) String(s string) string {
	s = legacy.ReplaceAllLiteralString(s, Placeholder)
	spans := scan(s, r.rules)
	for i, re := range r.patterns {
		for _, m := range re.FindAllStringIndex(s, -1) {
			spans = append(spans, span{m[0], m[1], fmt.Sprintf("--redact pattern #%d", i+1)})
		}
	}
	if len(spans) == 0 {
		if r.encodedSecret(s) {
			r.note("a base64 string holding one")
			return Placeholder
		}
		return s
	}
	spans = merge(spans)
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp.start < at {
			continue
		}
		b.WriteString(s[at:sp.start])
		b.WriteString(Placeholder)
		at = sp.end
		r.note(sp.by)
	}
	b.WriteString(s[at:])
	return b.String()
}

func (r *Redactor) value(name string, v any, changed *bool) any {
	if name != "" && r.secretName(name) {
		switch e := v.(type) {
		case string:
			if e == "" || e == Placeholder {
				return v
			}
		case json.Number, float64:
		case map[string]any:
			if len(e) == 0 {
				return v
			}
		case []any:
			if len(e) == 0 {
				return v
			}
		default: // true, false, null: no secret in them
			return v
		}
		*changed = true
		r.note("member name")
		return Placeholder
	}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"name", "key"} {
			if n, ok := v[k].(string); ok && r.secretName(n) {
				if _, ok := v["value"]; ok {
					v["value"] = r.value(n, v["value"], changed)
				}
			}
		}
		for k, e := range v {
			judged := k
			if schemaMaps[name] {
				judged = "" // a property's name, and its schema: no secret's
			}
			v[k] = r.value(judged, e, changed)
		}
		return v
	case []any:
		for i, e := range v {
			v[i] = r.value("", e, changed)
		}
		return v
	case string:
		if s := r.String(v); s != v {
			*changed = true
			return s
		}
	}
	return v
}

// schemaMaps are JSON Schema's members whose own members are names of
// properties (a tool's "password" argument) and schemas, not values.
var schemaMaps = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true}

func (r *Redactor) secretName(name string) bool {
	return r.names[strings.ToLower(name)] || SecretName(name)
}

// notBase64 reports whether r is outside both base64 alphabets.
func notBase64(r rune) bool {
	return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '-' || r == '_')
}

// encodedSecret reports whether s is base64 of text that holds a secret.
func (r *Redactor) encodedSecret(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "data:") {
		if i := strings.Index(s, ";base64,"); i > 0 && !strings.Contains(s[:i], ",") {
			s = s[i+len(";base64,"):]
		}
	}
	enc := strings.TrimRight(s, "=")
	if len(enc) < 16 || len(s)-len(enc) > 2 || len(enc) > 8<<20 || strings.IndexFunc(enc, notBase64) >= 0 {
		return false
	}
	var text []byte
	for _, e := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if b, err := e.DecodeString(enc); err == nil {
			text = b
			break
		}
	}
	if text == nil || !utf8.Valid(text) || bytes.ContainsRune(text, 0) {
		return false // not text: an image, a binary
	}
	var v any
	if json.Unmarshal(text, &v) == nil {
		changed := false
		probe := &Redactor{names: r.names, patterns: r.patterns, rules: r.rules, count: map[string]int{}}
		probe.value("", v, &changed)
		if changed {
			return true
		}
	}
	t := string(text)
	if len(scan(t, r.rules)) > 0 {
		return true
	}
	for _, re := range r.patterns {
		if re.MatchString(t) {
			return true
		}
	}
	return false
}

// duplicates reports whether an object in the JSON text msg, valid JSON,
// repeats a member. It reads the text once, skipping through strings with
// IndexAny: a 10 MB answer costs milliseconds.
func duplicates(msg []byte) bool {
	type object struct {
		seen    map[string]bool
		wantKey bool
	}
	var stack []*object // nil entries: arrays
	for i := 0; i < len(msg); i++ {
		switch msg[i] {
		case '{':
			stack = append(stack, &object{seen: map[string]bool{}, wantKey: true})
		case '[':
			stack = append(stack, nil)
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if n := len(stack); n > 0 && stack[n-1] != nil {
				stack[n-1].wantKey = true
			}
		case '"':
			end := i + 1
			for {
				j := bytes.IndexAny(msg[end:], `"\`)
				if j < 0 {
					return false
				}
				end += j
				if msg[end] == '\\' {
					end += 2
					continue
				}
				break
			}
			if n := len(stack); n > 0 && stack[n-1] != nil && stack[n-1].wantKey {
				var k string
				if json.Unmarshal(msg[i:end+1], &k) != nil {
					return false
				}
				if stack[n-1].seen[k] {
					return true
				}
				stack[n-1].seen[k] = true
				stack[n-1].wantKey = false
			}
			i = end
		}
	}
	return false
}

func (r *Redactor) note(what string) {
	r.mu.Lock()
	r.count[what]++
	r.mu.Unlock()
}

// Summary says what was redacted, in one line: "redacted 3 secret(s): 2 by
// member name, 1 by gitleaks github-pat", or "" when nothing was. It names
// rules, never what they matched.
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
