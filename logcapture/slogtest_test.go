package logcapture

import (
	"log/slog"
	"testing"
	"testing/slogtest"
)

// recordMap turns a captured record into the nested map slogtest expects:
// built-in keys at the top, one map per group.
func recordMap(r Record) map[string]any {
	m := map[string]any{
		slog.LevelKey:   r.Level,
		slog.MessageKey: r.Message,
	}
	if !r.Time.IsZero() {
		m[slog.TimeKey] = r.Time
	}
	if src := r.Source(); src != nil {
		m[slog.SourceKey] = src
	}
	for _, a := range r.attrs {
		dst := m
		for _, g := range a.groups {
			sub, ok := dst[g].(map[string]any)
			if !ok {
				sub = map[string]any{}
				dst[g] = sub
			}
			dst = sub
		}
		dst[a.key] = a.value.Any()
	}
	return m
}

func TestSlogtestRun(t *testing.T) {
	var rec *Recorder
	slogtest.Run(t,
		func(t *testing.T) slog.Handler {
			rec = New(t)
			return rec
		},
		func(t *testing.T) map[string]any {
			recs := rec.Records()
			if len(recs) != 1 {
				t.Fatalf("got %d records, want 1", len(recs))
			}
			return recordMap(recs[0])
		})
}

func TestSlogtestHandler(t *testing.T) {
	rec := New(t)
	err := slogtest.TestHandler(rec, func() []map[string]any {
		var out []map[string]any
		for _, r := range rec.Records() {
			out = append(out, recordMap(r))
		}
		return out
	})
	if err != nil {
		t.Fatal(err)
	}
}
