package logcapture

import (
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
)

// Matcher selects records. Queries and assertions keep the records that match
// every matcher they are given. String describes the matcher in failure
// messages.
type Matcher interface {
	Match(Record) bool
	String() string
}

type funcMatcher struct {
	desc string
	fn   func(Record) bool
}

func (m funcMatcher) Match(r Record) bool { return m.fn(r) }
func (m funcMatcher) String() string      { return m.desc }

// MatchFunc returns a matcher that selects the records for which fn returns
// true; desc describes it in failure messages.
func MatchFunc(desc string, fn func(Record) bool) Matcher { return funcMatcher{desc, fn} }

// Level matches records at exactly level l.
func Level(l slog.Level) Matcher {
	return MatchFunc("level == "+l.String(), func(r Record) bool { return r.Level == l })
}

// AtLeast matches records at level l or above: AtLeast(slog.LevelWarn)
// selects warnings and errors.
func AtLeast(l slog.Level) Matcher {
	return MatchFunc("level >= "+l.String(), func(r Record) bool { return r.Level >= l })
}

// Message matches records whose message is exactly msg.
func Message(msg string) Matcher {
	return MatchFunc(fmt.Sprintf("message == %q", msg), func(r Record) bool { return r.Message == msg })
}

// MessageContains matches records whose message contains substr.
func MessageContains(substr string) Matcher {
	return MatchFunc(fmt.Sprintf("message contains %q", substr), func(r Record) bool {
		return strings.Contains(r.Message, substr)
	})
}

// MessageMatches matches records whose message matches the regular expression
// pattern ([regexp] syntax). It panics if pattern does not compile, like
// [regexp.MustCompile]: the pattern is part of the test, not its input.
func MessageMatches(pattern string) Matcher {
	re, err := regexp.Compile(pattern)
	if err != nil {
		panic(fmt.Sprintf("logcapture.MessageMatches: invalid pattern %q: %v", pattern, err))
	}
	return MatchFunc(fmt.Sprintf("message matches /%s/", pattern), func(r Record) bool {
		return re.MatchString(r.Message)
	})
}

// Attr matches records that have the attribute key (a full key: "request.id"
// inside group "request") with a value equal to want. Numbers compare by
// value across Go types (Attr("code", -32603) matches an int64 attribute),
// and other values compare with [reflect.DeepEqual]; want may also be an
// [slog.Value].
func Attr(key string, want any) Matcher {
	wv := slog.AnyValue(want).Resolve()
	return MatchFunc(fmt.Sprintf("%s == %s", key, quoteValue(wv)), func(r Record) bool {
		v, ok := r.Lookup(key)
		return ok && valuesEqual(v, wv)
	})
}

// AttrContains matches records that have the attribute key and whose value,
// as text, contains substr. It is the way to look into a logged error or
// stack: AttrContains("stack", "mypkg.(*Server).handle").
func AttrContains(key, substr string) Matcher {
	return MatchFunc(fmt.Sprintf("%s contains %q", key, substr), func(r Record) bool {
		v, ok := r.Lookup(key)
		return ok && strings.Contains(valueText(v), substr)
	})
}

// HasAttr matches records that have the attribute key, whatever its value.
func HasAttr(key string) Matcher {
	return MatchFunc("has "+key, func(r Record) bool {
		_, ok := r.Lookup(key)
		return ok
	})
}

// InGroup matches records with at least one attribute inside the group
// path, a dotted path from the root ("request", or "request.meta" for a
// group nested in it).
func InGroup(path string) Matcher {
	return MatchFunc(fmt.Sprintf("in group %q", path), func(r Record) bool {
		for _, a := range r.attrs {
			if g := strings.Join(a.groups, "."); g == path || strings.HasPrefix(g, path+".") {
				return true
			}
		}
		return false
	})
}

// compound is an All or Any of several matchers; its description is
// parenthesised when nested.
type compound struct{ funcMatcher }

// All matches records that match every one of ms (all records if ms is
// empty).
func All(ms ...Matcher) Matcher {
	m := funcMatcher{describe(ms, " and "), func(r Record) bool { return matchAll(ms, r) }}
	if len(ms) > 1 {
		return compound{m}
	}
	return m
}

// Any matches records that match at least one of ms (none if ms is empty).
func Any(ms ...Matcher) Matcher {
	desc := "nothing"
	if len(ms) > 0 {
		desc = describe(ms, " or ")
	}
	m := funcMatcher{desc, func(r Record) bool {
		for _, m := range ms {
			if m.Match(r) {
				return true
			}
		}
		return false
	}}
	if len(ms) > 1 {
		return compound{m}
	}
	return m
}

// Not matches records that m does not match.
func Not(m Matcher) Matcher {
	return MatchFunc("not "+paren(m), func(r Record) bool { return !m.Match(r) })
}

func matchAll(ms []Matcher, r Record) bool {
	for _, m := range ms {
		if !m.Match(r) {
			return false
		}
	}
	return true
}

// describe joins the matchers' descriptions; no matcher means every record.
func describe(ms []Matcher, sep string) string {
	switch len(ms) {
	case 0:
		return "any record"
	case 1:
		return ms[0].String()
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = paren(m)
	}
	return strings.Join(parts, sep)
}

// paren wraps a compound description in parentheses so that nesting reads
// unambiguously.
func paren(m Matcher) string {
	if _, ok := m.(compound); ok {
		return "(" + m.String() + ")"
	}
	return m.String()
}

// valuesEqual compares a captured value with a wanted one. Integer kinds are
// compared by value so that an int literal matches an int64 or uint64
// attribute; uncomparable Any values go through reflect.DeepEqual instead of
// slog.Value.Equal, which would panic.
func valuesEqual(got, want slog.Value) bool {
	if n, ok := asInt(got); ok {
		if m, ok := asInt(want); ok {
			return n == m
		}
	}
	if got.Kind() != want.Kind() {
		return false
	}
	if got.Kind() == slog.KindAny {
		return reflect.DeepEqual(got.Any(), want.Any())
	}
	return got.Equal(want)
}

// asInt returns an integer value as a comparable pair; ok is false for
// non-integers and for uint64 values beyond int64.
func asInt(v slog.Value) (int64, bool) {
	switch v.Kind() {
	case slog.KindInt64:
		return v.Int64(), true
	case slog.KindUint64:
		if u := v.Uint64(); u <= 1<<63-1 {
			return int64(u), true
		}
	}
	return 0, false
}
