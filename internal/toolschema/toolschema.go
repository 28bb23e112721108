// Package toolschema compiles the JSON Schemas of MCP tools the one way the
// module reads them: 2020-12 unless $schema names another draft, offline,
// patterns in ECMA-262 syntax, and no schema beyond the bounds below.
// mcptest's assertions and servercheck's checks share it.
package toolschema

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The bounds of a schema Compile accepts. Compiling costs more than linear
// time in the nesting (a schema 2000 levels deep took over a minute, one 64
// deep takes milliseconds) and about linear time in the size (256 KiB of
// subschemas take well under a second).
const (
	MaxBytes = 256 << 10
	MaxDepth = 64 // JSON objects and arrays inside one another
)

// ErrTooBig is wrapped by Compile's error for a schema beyond [MaxBytes] or
// [MaxDepth]: it was not compiled, so nothing is known of its validity.
var ErrTooBig = errors.New("too big to check")

// MatchTimeout bounds one match of a pattern that regexp2 runs (see
// Compile): a backtracking engine can take exponential time on a pattern
// like (a+)+$. A match that runs out of time counts as a match, so that
// the kit's own bound never fails a value.
const MatchTimeout = 250 * time.Millisecond

type untimedKey struct{}

// Untimed marks ctx as that of code running in a testing/synctest bubble:
// there regexp2's timeout would start its clock goroutine inside the bubble,
// which then panics when the test ends ("blocked goroutines remain"), and a
// match's CPU time never moves the bubble's clock anyway.
func Untimed(ctx context.Context) context.Context { return context.WithValue(ctx, untimedKey{}, true) }

// Timeout returns the MatchTimeout for Compile under ctx: 0 (none) under
// [Untimed].
func Timeout(ctx context.Context) time.Duration {
	if untimed, _ := ctx.Value(untimedKey{}).(bool); untimed {
		return 0
	}
	return MatchTimeout
}

// Compile compiles raw, named name in errors. A schema that refers to
// another document by URL is an error: nothing is fetched from the network
// or read from the disk. A pattern is ECMA-262, as JSON Schema says: Go's
// regexp (linear time) runs those it parses, regexp2 in ECMAScript mode the
// others (lookaround, backreferences, \u escapes), each match bounded by
// matchTimeout unless it is 0.
func Compile(raw []byte, name string, matchTimeout time.Duration) (*jsonschema.Schema, error) {
	if err := bounded(raw); err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	clampCounts(doc)
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	c.UseRegexpEngine(engine(matchTimeout))
	loc := "mcptestkit:///" + url.PathEscape(name)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

// bounded reports a schema beyond the bounds, reading raw once without
// decoding it (bytes in strings are skipped, escapes included).
func bounded(raw []byte) error {
	if len(raw) > MaxBytes {
		return fmt.Errorf("%w: the schema is %d bytes, more than the %d the kit compiles; a schema that size is also a "+
			"burden on every model that reads it: move what does not describe the arguments to the description", ErrTooBig, len(raw), MaxBytes)
	}
	depth, inString, escaped := 0, false, false
	for _, b := range raw {
		switch {
		case escaped:
			escaped = false
		case inString:
			inString = b != '"'
			escaped = b == '\\'
		case b == '"':
			inString = true
		case b == '{' || b == '[':
			if depth++; depth > MaxDepth {
				return fmt.Errorf("%w: the schema nests JSON objects and arrays more than %d levels deep (compiling grows faster "+
					"than the nesting: 2000 levels take minutes); a recursive structure is described with $defs and $ref", ErrTooBig, MaxDepth)
			}
		case b == '}' || b == ']':
			depth--
		}
	}
	return nil
}

// isCount reports whether k is a keyword the compiler reads into an int: a
// value past int64 (maxItems 1e19) wraps around to a negative bound, which
// fails every array (maxItems) or none (minItems). No instance has 2^63 of
// anything, so such a value is read as 2^63-1, which means the same.
func isCount(k string) bool {
	switch k {
	case "minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties", "minContains", "maxContains":
		return true
	}
	return false
}

// clampCounts rewrites the counts past int64 in the subschemas of v (a
// schema decoded with json.Number), leaving the JSON values the schema
// holds (const, enum, default, examples) as they are.
func clampCounts(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if n, ok := x.(json.Number); ok && isCount(k) {
				if f, _ := strconv.ParseFloat(string(n), 64); f >= 1<<63 { // +Inf past float64 too
					v[k] = json.Number(strconv.FormatInt(math.MaxInt64, 10))
				}
				continue
			}
			switch k {
			case "const", "enum", "default", "examples":
			default:
				clampCounts(x)
			}
		}
	case []any:
		for _, x := range v {
			clampCounts(x)
		}
	}
}

func engine(timeout time.Duration) jsonschema.RegexpEngine {
	return func(pattern string) (jsonschema.Regexp, error) {
		if re, err := regexp.Compile(pattern); err == nil {
			return re, nil
		}
		re, err := regexp2.Compile(pattern, regexp2.ECMAScript)
		if err != nil {
			return nil, err
		}
		if timeout > 0 {
			re.MatchTimeout = timeout
		}
		return ecma{re}, nil
	}
}

// timedMatches counts the matches run with a timeout: each starts or keeps
// alive regexp2's clock goroutine, one per process (hence package
// variables). clock is held for reading by each timed match and for writing
// by StopClock, so that the clock never stops under a match it times.
var (
	timedMatches atomic.Int64
	stoppedAt    atomic.Int64 // timedMatches when StopClock last stopped the clock
	clock        sync.RWMutex
)

// StopClock ends regexp2's clock goroutine, if a timed match started it: it
// outlives the last match by over a second, long enough for the
// goleak.VerifyTestMain of a test binary that ends just after a check or an
// assertion to report it as a leak. It waits for the timed matches under way
// to end; a later one starts the clock again. Every code path that matches
// patterns on a test's or a program's behalf calls it when done.
func StopClock() {
	if n := timedMatches.Load(); n == 0 || n == stoppedAt.Load() {
		return // no timed match since the clock last stopped (stopping waits 50 ms even then)
	}
	clock.Lock()
	defer clock.Unlock()
	regexp2.StopTimeoutClock()
	stoppedAt.Store(timedMatches.Load()) // no match runs: they count under clock
}

// TimedMatches returns how many timed matches have run in the process: a
// caller compares it before and after its work to learn whether the work
// started the clock.
func TimedMatches() int64 { return timedMatches.Load() }

// ecma is a pattern regexp2 runs.
type ecma struct{ re *regexp2.Regexp }

func (e ecma) MatchString(s string) bool {
	if e.re.MatchTimeout > 0 && e.re.MatchTimeout < math.MaxInt64 {
		clock.RLock()
		defer clock.RUnlock()
		timedMatches.Add(1)
	}
	ok, err := e.re.MatchString(s)
	return ok || err != nil // err: out of time, see MatchTimeout
}

func (e ecma) String() string { return e.re.String() }

type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s; external schemas are not loaded (schemas are checked offline)", u)
}
