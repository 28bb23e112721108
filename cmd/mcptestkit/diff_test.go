package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
			} else {
				b.WriteString("line " + string(rune('a'+i-1)))
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	assert.Empty(t, unifiedDiff("a", "b", lines(5, nil), lines(5, nil)))

	got := unifiedDiff("recorded", "now", lines(20, nil), lines(20, map[int]string{2: "CHANGED", 18: "ALSO"}))
	assert.Equal(t, `--- recorded
+++ now
@@ -1,5 +1,5 @@
 line a
-line b
+CHANGED
 line c
 line d
 line e
@@ -15,6 +15,6 @@
 line o
 line p
 line q
-line r
+ALSO
 line s
 line t
`, got)

	// An insertion and a deletion.
	got = unifiedDiff("a", "b", "x\ny\nz\n", "x\nnew\nz\n")
	assert.Equal(t, "--- a\n+++ b\n@@ -1,3 +1,3 @@\n x\n-y\n+new\n z\n", got)
	got = unifiedDiff("a", "b", "x\n", "x\ny\n")
	assert.Equal(t, "--- a\n+++ b\n@@ -1,1 +1,2 @@\n x\n+y\n", got)
}
