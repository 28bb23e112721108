package drift_test

import (
	"runtime"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/drift"
)

// allocated returns the bytes Compare allocates comparing old with new.
func allocated(t *testing.T, old, new []byte) uint64 {
	t.Helper()
	o, err := drift.Parse(old)
	if err != nil {
		t.Fatal(err)
	}
	n, err := drift.Parse(new)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	drift.Compare(o, n)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Comparing costs in proportion to the size of what is compared: twice the
// depth of a schema, or twice the tools all renamed, costs about twice as
// much, not four times (it did: 9000 levels took 40 s). Measured in bytes
// allocated, which load does not change; not parallel, so that no other
// test allocates meanwhile.
func TestCompareScalesLinearly(t *testing.T) {
	for _, c := range []struct {
		name       string
		small, big [2][]byte
	}{
		{"deep schema", [2][]byte{deep(500, "number"), deep(500, "integer")}, [2][]byte{deep(2000, "number"), deep(2000, "integer")}},
		{"mass renames", [2][]byte{renamed(500, "old_"), renamed(500, "new_")}, [2][]byte{renamed(2000, "old_"), renamed(2000, "new_")}},
	} {
		small := allocated(t, c.small[0], c.small[1])
		big := allocated(t, c.big[0], c.big[1])
		if ratio := float64(big) / float64(small); ratio > 6 { // linear: 4; quadratic: 16
			t.Errorf("%s: 4 times the size allocates %.1f times the bytes (%d, %d)", c.name, ratio, small, big)
		}
	}
}

// A list that names one tool twice is refused, naming both items.
func TestParseRefusesDuplicateNames(t *testing.T) {
	_, err := drift.Parse([]byte(`{"tools":[{"name":"a","inputSchema":{}},{"name":"b","inputSchema":{}},{"name":"a","inputSchema":{"type":"object"}}]}`))
	if err == nil || err.Error() != `tools[0] and tools[2] have the same name "a": a server's list names each item once` {
		t.Errorf("Parse: %v", err)
	}
	_, err = drift.Parse([]byte(`{"resources":[{"uri":"x://1"},{"uri":"x://1"}]}`))
	if err == nil {
		t.Error("Parse accepted a resource listed twice")
	}
}
