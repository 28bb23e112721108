package servercheck

import (
	"fmt"
	"maps"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Strings for a "pattern". The generator aims at a pattern by walking its
// syntax tree: a literal as written, a class by one of its characters, a
// repetition a few times. Go's regexp/syntax reads most patterns; what it
// lacks of ECMA-262, which JSON Schema patterns are written in, is handled
// so: \uXXXX becomes \x{XXXX}, a lookaround is left out (the validator
// still applies it, so a string that breaks it is simply not sent), and a
// pattern still unread (a backreference) is not aimed at: the generator
// tries its usual strings, and a failure says which construct stood in the
// way.

// aimed is a pattern as the generator reads it; re is nil when it cannot.
type aimed struct{ re *syntax.Regexp }

// fromPattern returns a string aimed at pattern p, or false when the
// generator cannot aim at it, or chose not to this time (the usual strings
// find what a pattern's author did not think of).
func (g *gen) fromPattern(p string) (string, bool) {
	a, ok := g.patterns[p]
	if !ok {
		a = g.read(p)
		if g.patterns == nil {
			g.patterns = map[string]aimed{}
		}
		g.patterns[p] = a
	}
	if a.re == nil || g.e.intn(4) == 0 {
		return "", false
	}
	var b strings.Builder
	g.write(&b, a.re)
	return b.String(), g.spend(b.Len())
}

// read parses p, noting what of it the generator leaves out or cannot use.
func (g *gen) read(p string) aimed {
	src, dropped := translate(p)
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		g.note(p, fmt.Sprintf("the generator cannot aim at it (%v: ECMA-262 syntax Go's regexp/syntax lacks) and tried its usual strings", err))
		return aimed{}
	}
	if len(dropped) > 0 {
		g.note(p, fmt.Sprintf("the generator aimed at it without %s (lookaround, which Go's regexp/syntax lacks; the validator applies it)", strings.Join(dropped, " ")))
	}
	return aimed{re}
}

func (g *gen) note(pattern, what string) {
	if g.unaimed == nil {
		g.unaimed = map[string]string{}
	}
	g.unaimed[pattern] = what
}

// patternNotes lists what the generator could not use of the patterns it
// met, one line each, or "".
func (g *gen) patternNotes() string {
	var lines []string
	for _, p := range slices.Sorted(maps.Keys(g.unaimed)) {
		lines = append(lines, fmt.Sprintf("pattern %q: %s", p, g.unaimed[p]))
	}
	return strings.Join(lines, "\n")
}

// translate rewrites the ECMA-262 of p that Go's syntax reads otherwise
// (\uXXXX, \u{X}) and leaves out lookarounds, which it returns.
func translate(p string) (out string, dropped []string) {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			if hex, n := uEscape(p[i:]); n > 0 {
				b.WriteString(`\x{` + hex + `}`)
				i += n - 1
				continue
			}
			b.WriteString(p[i : i+2])
			i++
		case inClass:
			inClass = c != ']'
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
		case c == '(' && lookaround(p[i:]):
			end := groupEnd(p, i)
			if end < 0 {
				b.WriteString(p[i:]) // unbalanced: let the parser say so
				return b.String(), dropped
			}
			dropped = append(dropped, p[i:end+1])
			i = end
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), dropped
}

func lookaround(s string) bool {
	for _, op := range []string{"(?=", "(?!", "(?<=", "(?<!"} {
		if strings.HasPrefix(s, op) {
			return true
		}
	}
	return false
}

// uEscape reads \uXXXX or \u{X...} at the start of s: the hex digits and
// the escape's length, or 0.
func uEscape(s string) (hex string, n int) {
	if !strings.HasPrefix(s, `\u`) {
		return "", 0
	}
	if strings.HasPrefix(s, `\u{`) {
		end := strings.IndexByte(s, '}')
		if end > 3 && allHex(s[3:end]) {
			return s[3:end], end + 1
		}
		return "", 0
	}
	if len(s) >= 6 && allHex(s[2:6]) {
		return s[2:6], 6
	}
	return "", 0
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune("0123456789abcdefABCDEF", rune(s[i])) {
			return false
		}
	}
	return s != ""
}

// groupEnd returns the index of the parenthesis closing the group that
// opens at p[i], or -1.
func groupEnd(p string, i int) int {
	depth, inClass := 0, false
	for j := i; j < len(p); j++ {
		switch c := p[j]; {
		case c == '\\':
			j++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return j
			}
		}
	}
	return -1
}

// write writes a string re matches (wherever it matches: anchors write
// nothing) to b, within maxCount bytes and the generator's budget.
func (g *gen) write(b *strings.Builder, re *syntax.Regexp) {
	if b.Len() > maxCount || !g.spend(1) {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpCharClass:
		if len(re.Rune) >= 2 {
			b.WriteRune(g.pick(re.Rune))
		}
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte(byte('a' + g.e.intn(26)))
	case syntax.OpCapture:
		g.write(b, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			g.write(b, sub)
		}
	case syntax.OpAlternate:
		g.write(b, re.Sub[g.e.intn(len(re.Sub))])
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, 1
		switch re.Op {
		case syntax.OpStar:
			hi = 2
		case syntax.OpPlus:
			lo, hi = 1, 3
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
			if hi < 0 {
				hi = lo + 3
			}
		}
		for range lo + g.e.intn(min(hi, lo+3)-lo+1) {
			g.write(b, re.Sub[0])
		}
	}
}

// pick returns a character of a class (pairs of inclusive bounds),
// printable ASCII when the class has any: what every server takes.
func (g *gen) pick(ranges []rune) rune {
	printable := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		printable += max(0, int(min(ranges[i+1], '~')-max(ranges[i], ' '))+1)
	}
	if printable > 0 {
		k := g.e.intn(printable)
		for i := 0; i+1 < len(ranges); i += 2 {
			lo, hi := max(ranges[i], ' '), min(ranges[i+1], '~')
			if n := int(hi-lo) + 1; n > 0 {
				if k < n {
					return lo + rune(k)
				}
				k -= n
			}
		}
	}
	i := 2 * g.e.intn(len(ranges)/2)
	r := ranges[i] + rune(g.e.intn(int(min(ranges[i+1]-ranges[i], 0xffff))+1))
	if !utf8.ValidRune(r) {
		return ranges[i]
	}
	return r
}
