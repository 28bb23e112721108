package logcapture

import (
	"log/slog"
	"runtime"
	"strings"
	"time"
)

// StackKey is the attribute key [Record.Stack] reads: log a crash's stack
// under it (as a string or []byte) and tests can reach it directly.
const StackKey = "stack"

// Record is one captured log record. Records are values: a Record returned by
// a query never changes, even if the recorder is cleared afterwards.
type Record struct {
	// Time is the record's time; zero if the record had none.
	Time time.Time
	// Level is the record's level.
	Level slog.Level
	// Message is the record's message.
	Message string
	// PC is the program counter of the logging call, or 0 if the logger did
	// not add one. [Record.Source] turns it into a file and line.
	PC uintptr

	attrs []attr // handler attrs first, then the record's own; flattened
}

// attr is one flattened attribute: its value is resolved and never a group.
type attr struct {
	groups []string // group path from the root; shared between attrs, never mutated
	key    string
	value  slog.Value
}

// path returns the attribute's full key, groups joined with ".".
func (a attr) path() string {
	if len(a.groups) == 0 {
		return a.key
	}
	return strings.Join(a.groups, ".") + "." + a.key
}

// Attrs returns the record's attributes in the order they were added (those
// from [slog.Logger.With] first), flattened: an attribute inside groups has
// its group path in its key ("request.id"), and no value is a group or an
// unresolved [slog.LogValuer]. Empty groups are dropped.
func (r Record) Attrs() []slog.Attr {
	out := make([]slog.Attr, len(r.attrs))
	for i, a := range r.attrs {
		out[i] = slog.Attr{Key: a.path(), Value: a.value}
	}
	return out
}

// Lookup returns the value of the attribute with the given full key
// ("tool", or "request.id" inside group "request"). If the key occurs more
// than once, the last one wins, as when the record is decoded from JSON.
func (r Record) Lookup(key string) (slog.Value, bool) {
	for i := len(r.attrs) - 1; i >= 0; i-- {
		if r.attrs[i].path() == key {
			return r.attrs[i].value, true
		}
	}
	return slog.Value{}, false
}

// Value returns the Go value of the attribute with the given full key (as
// [slog.Value.Any] gives it: int64 for integers, string, error, ...), or nil
// if the record has no such attribute.
func (r Record) Value(key string) any {
	v, ok := r.Lookup(key)
	if !ok {
		return nil
	}
	return v.Any()
}

// Stack returns the stack logged with the record: the value of the attribute
// [StackKey] ("stack") as text, or, failing that, of the last attribute whose
// key ends in ".stack". It returns "" if there is none.
func (r Record) Stack() string {
	v, ok := r.Lookup(StackKey)
	if !ok {
		for i := len(r.attrs) - 1; i >= 0; i-- {
			if r.attrs[i].key == StackKey {
				v, ok = r.attrs[i].value, true
				break
			}
		}
	}
	if !ok {
		return ""
	}
	return valueText(v)
}

// Source returns the file, line and function of the logging call, or nil if
// the logger recorded no program counter.
func (r Record) Source() *slog.Source {
	if r.PC == 0 {
		return nil
	}
	f, _ := runtime.CallersFrames([]uintptr{r.PC}).Next()
	return &slog.Source{Function: f.Function, File: f.File, Line: f.Line}
}

// String returns the record as one readable line, followed by an indented
// block for each multi-line attribute (such as a stack).
func (r Record) String() string {
	var b strings.Builder
	writeRecord(&b, r, "", nil)
	return b.String()
}

// valueText returns v as plain text: strings and byte slices as they are,
// everything else as slog's text form.
func valueText(v slog.Value) string {
	switch v.Kind() {
	case slog.KindString:
		return v.String()
	case slog.KindAny:
		if b, ok := v.Any().([]byte); ok {
			return string(b)
		}
	}
	return v.String()
}
