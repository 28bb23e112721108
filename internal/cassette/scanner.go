package cassette

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"

	ahocorasick "github.com/BobuSumisu/aho-corasick"
	"github.com/spf13/viper"
	"github.com/zricethezav/gitleaks/v8/config"
)

// The formats of secrets are gitleaks' (github.com/zricethezav/gitleaks/v8,
// MIT): its default rule set, embedded in its config package, is kept up
// by a large community (some 220 rules, a release most months), with its
// keywords and entropy thresholds, which scan applies as gitleaks'
// detector does. A private list would be stale within months. Its allow
// lists are not applied: they keep a scanner's report short (a false
// alarm costs a reader's time), where a false alarm costs a recording one
// placeholder, and a miss a leak (its global list passes any secret that
// holds "abcdefghijklmnopqrstuvwxyz", or starts with "true").
//
// The price is gitleaks' config package, and through it viper: with them,
// the root module's `go mod graph` grew from 55 to 351 edges, its go.sum
// from 37 to 96 lines, and it moved testify, go-cmp and golang.org/x/...
// for every user (a go-sdk server adding mcptest would see its modules
// move). So this package is a module of its own, as is mcptest/cassette,
// its go test face: only who records or plays cassettes pays for the
// rules (the command line grows by 2 MB), never a user of mcptest alone.
//
// A few things a source scanner has no reason to look for, and a protocol
// recorder sees, are added (protocolPatterns): an Authorization value
// (Bearer, Basic), curl's -u user:password, a password in a URL, a query
// parameter named like a secret, and token formats gitleaks has no rule for (Google OAuth
// ya29./GOCSPX-, Stripe webhook whsec_).

// rule is one gitleaks rule as the scanner applies it.
type rule struct {
	id       string
	re       *regexp.Regexp
	group    int     // the secret's submatch; 0: the first non-empty one
	entropy  float64 // a secret at or below this Shannon entropy is none
	keywords []string
	gitleaks bool // one of gitleaks' (else of protocolPatterns)
}

// ruleSet is gitleaks' default rules, compiled once for the process.
type ruleSet struct {
	rules []rule // gitleaks' and protocolPatterns
	// keywords finds, in one pass, which rules' keywords a string holds
	// (pattern number i is keywords[i]); a rule runs only then.
	trie     *ahocorasick.Trie
	keywords []string
}

// loadRules parses gitleaks' rules once: some 200 regular expressions,
// tens of milliseconds, paid by the first redactor only.
func loadRules() (*ruleSet, error) {
	rs, err := compiled()
	return &rs, err
}

var compiled = sync.OnceValues(func() (ruleSet, error) {
	v := viper.New()
	v.SetConfigType("toml")
	if err := v.ReadConfig(strings.NewReader(config.DefaultConfig)); err != nil {
		return ruleSet{}, fmt.Errorf("gitleaks' rules: %v", err)
	}
	var vc config.ViperConfig
	if err := v.Unmarshal(&vc); err != nil {
		return ruleSet{}, fmt.Errorf("gitleaks' rules: %v", err)
	}
	c, err := vc.Translate()
	if err != nil {
		return ruleSet{}, fmt.Errorf("gitleaks' rules: %v", err)
	}
	var rules []rule
	for _, id := range slices.Sorted(mapKeys(c.Rules)) {
		r := c.Rules[id]
		if r.Regex == nil || r.SkipReport {
			continue // a rule on file paths alone: no path here
		}
		kw := make([]string, len(r.Keywords))
		for i, k := range r.Keywords {
			kw[i] = strings.ToLower(k)
		}
		rules = append(rules, rule{id: r.RuleID, re: r.Regex, group: r.SecretGroup, entropy: r.Entropy, keywords: kw, gitleaks: true})
	}
	rules = append(rules, protocolPatterns...)
	seen := map[string]bool{}
	var kws []string
	for _, r := range rules {
		for _, k := range r.keywords {
			if !seen[k] {
				seen[k] = true
				kws = append(kws, k)
			}
		}
	}
	return ruleSet{rules: rules, trie: ahocorasick.NewTrieBuilder().AddStrings(kws).Build(), keywords: kws}, nil
})

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// GitleaksRules returns the ids of the rules of gitleaks' default set that
// the redactor applies.
func GitleaksRules() ([]string, error) {
	rs, err := loadRules()
	var ids []string
	for _, r := range rs.rules {
		if r.gitleaks {
			ids = append(ids, r.id)
		}
	}
	return ids, err
}

// protocolPatterns: see above. Each names its secret with a group "s",
// and runs only on a string holding one of its keywords (lower case), as
// gitleaks' rules do: a 10 MB answer costs a few passes of strings.Index.
var protocolPatterns = []rule{
	{id: "authorization value", keywords: []string{"bearer", "basic", "token", "digest"},
		re: regexp.MustCompile(`(?i)\b(?:bearer|basic|token|digest)\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})`)},
	{id: "user:password given to curl", keywords: []string{"-u", "--user"},
		re: regexp.MustCompile(`(?:^|\s)(?:-u|--user)(?:=|\s*)['"]?[^\s:'"]+:(?P<s>[^\s'"]{3,})`)},
	{id: "password in a URL", keywords: []string{"://"},
		re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.-]*://[^\s:/?#@"']*:(?P<s>[^\s/?#@"']+)@`)},
	{id: "google oauth token", keywords: []string{"ya29."}, re: regexp.MustCompile(`\b(?P<s>ya29\.[0-9A-Za-z_-]{20,})`)},
	{id: "google oauth client secret", keywords: []string{"gocspx-"}, re: regexp.MustCompile(`\b(?P<s>GOCSPX-[0-9A-Za-z_-]{20,})`)},
	{id: "stripe webhook secret", keywords: []string{"whsec_"}, re: regexp.MustCompile(`\b(?P<s>whsec_[0-9A-Za-z+/=]{20,})`)},
	{id: "aws access key id", keywords: []string{"akia", "asia"}, re: regexp.MustCompile(`\b(?P<s>AKIA[0-9A-Z]{16}|ASIA[0-9A-Z]{16})\b`)},
	// Kept from this package's earlier list, broader than gitleaks' exact
	// OpenAI and Anthropic formats.
	{id: "openai or anthropic key", keywords: []string{"sk-"}, re: regexp.MustCompile(`\b(?P<s>sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,})\b`)},
}

// queryParams returns the values of the query parameters of URL-like text
// (?name=value, &name=value, ;name=value) whose names the member-name rule
// takes for a secret's.
func queryParams(s string) []span {
	var out []span
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '?' && c != '&' && c != ';' {
			continue
		}
		n := i + 1
		for n < len(s) && (isWordByte(s[n]) || strings.IndexByte(".-[]", s[n]) >= 0) {
			n++
		}
		if n == i+1 || n >= len(s) || s[n] != '=' {
			continue
		}
		v := n + 1
		for v < len(s) && strings.IndexByte("&#\"'<> \t\r\n", s[v]) < 0 {
			v++
		}
		if v > n+1 && SecretName(s[i+1:n]) {
			out = append(out, span{n + 1, v, "query parameter"})
		}
		i = n
	}
	return out
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// span is a secret's place in a string, and what found it.
type span struct {
	start, end int
	by         string
}

// scan returns the secrets in s, by gitleaks' rules and the protocol
// patterns, in order, overlapping ones merged.
func scan(s string, rs *ruleSet) []span {
	out := scanView(s, rs)
	if strings.IndexByte(s, '\\') >= 0 {
		// Text escaped once more (a quoted string or JSON inside a
		// string: key = \"secret\", <key>\n  secret\n</key>), seen
		// unescaped, as gitleaks sees the source it was quoted from.
		t, at := unescaped(s)
		for _, sp := range scanView(t, rs) {
			out = append(out, span{at[sp.start], at[sp.end], sp.by})
		}
	}
	return merge(out)
}

// unescaped returns s with its backslash escapes (\n \t \r \" \' \\ \/)
// undone, and where each of its bytes, and its end, were in s.
func unescaped(s string) (string, []int) {
	var b strings.Builder
	at := make([]int, 0, len(s)+1)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			e := s[i+1]
			switch e {
			case 'n':
				e = '\n'
			case 't':
				e = '\t'
			case 'r':
				e = '\r'
			case '"', '\'', '\\', '/':
			default:
				e = 0
			}
			if e != 0 {
				b.WriteByte(e)
				at = append(at, i)
				i++
				continue
			}
		}
		b.WriteByte(c)
		at = append(at, i)
	}
	return b.String(), append(at, len(s))
}

func scanView(s string, rs *ruleSet) []span {
	present := map[string]bool{}
	rs.trie.Walk([]byte(strings.ToLower(s)), func(_, _, pattern int64) bool {
		present[rs.keywords[pattern]] = true
		return true
	})
	var out []span
	for i := range rs.rules {
		r := &rs.rules[i]
		if len(r.keywords) > 0 && !slices.ContainsFunc(r.keywords, func(k string) bool { return present[k] }) {
			continue
		}
		for _, m := range r.re.FindAllStringSubmatchIndex(s, -1) {
			start, end := secretGroup(m, r.group)
			if start < 0 {
				continue
			}
			if !r.gitleaks {
				out = append(out, span{start, end, r.id})
				continue
			}
			if r.entropy > 0 && entropy(s[start:end]) <= r.entropy {
				continue
			}
			// The secret, and what follows it in the match as long as it
			// could be more of it: a group may be only a secret's head
			// (jwt-base64 names the JWT's algorithm).
			for end < m[1] && (isWordByte(s[end]) || strings.IndexByte("+/=-.", s[end]) >= 0) {
				end++
			}
			out = append(out, span{start, end, "gitleaks " + r.id})
		}
	}
	return append(out, queryParams(s)...)
}

// secretGroup is where gitleaks takes a match's secret: the rule's group,
// or else the first non-empty group, or else the whole match.
func secretGroup(m []int, group int) (int, int) {
	if len(m) <= 2 {
		return m[0], m[1]
	}
	if group > 0 {
		if 2*group+1 >= len(m) || m[2*group] < 0 {
			return -1, -1
		}
		return m[2*group], m[2*group+1]
	}
	for g := 1; 2*g+1 < len(m); g++ {
		if m[2*g] >= 0 && m[2*g+1] > m[2*g] {
			return m[2*g], m[2*g+1]
		}
	}
	return m[0], m[1]
}

// entropy is the Shannon entropy of s as gitleaks measures it (counting
// runes, dividing by bytes).
func entropy(s string) float64 {
	if s == "" {
		return 0
	}
	counts := map[rune]int{}
	for _, r := range s {
		counts[r]++
	}
	e := 0.0
	for _, c := range counts {
		p := float64(c) / float64(len(s))
		e -= p * math.Log2(p)
	}
	return e
}

// merge sorts spans and joins those that overlap.
func merge(spans []span) []span {
	if len(spans) < 2 {
		return spans
	}
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	out := spans[:1]
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		out = append(out, s)
	}
	return out
}
