package drift_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/drift"
)

// deep is a tool whose input schema nests levels objects, the innermost
// property of type leaf.
func deep(levels int, leaf string) []byte {
	return []byte(`{"tools":[{"name":"t","inputSchema":` +
		strings.Repeat(`{"type":"object","properties":{"a":`, levels) + `{"type":"` + leaf + `"}` + strings.Repeat(`}}`, levels) + `}]}`)
}

// renamed is a listing of n tools, each with its own schema, named with
// prefix.
func renamed(n int, prefix string) []byte {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"name":"%s%d","description":"tool %d","inputSchema":{"type":"object","properties":{"p%d":{"type":"string"}}}}`, prefix, i, i, i)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func compareBench(b *testing.B, old, new []byte, want int) {
	o, err := drift.Parse(old)
	if err != nil {
		b.Fatal(err)
	}
	n, err := drift.Parse(new)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if got := len(drift.Compare(o, n)); got != want {
			b.Fatalf("%d changes, want %d", got, want)
		}
	}
}

// A change at the bottom of a deep schema: the work grows with the depth,
// in proportion.
func BenchmarkDeepSchema(b *testing.B) {
	for _, levels := range []int{1000, 2000, 4000} {
		b.Run(fmt.Sprint(levels), func(b *testing.B) {
			compareBench(b, deep(levels, "number"), deep(levels, "integer"), 1)
		})
	}
}

// Every tool renamed: each is paired with its new name.
func BenchmarkMassRenames(b *testing.B) {
	for _, n := range []int{1000, 3000, 9000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			compareBench(b, renamed(n, "old_"), renamed(n, "new_"), n)
		})
	}
}
