package textdiff

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnifiedDiff(t *testing.T) {
	t.Parallel()
	old := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n"
	for _, tc := range []struct {
		name, new, want string
	}{
		{"equal", old, ""},
		{"one line changed", strings.Replace(old, "g\n", "G\n", 1), `--- old
+++ new
@@ -4,7 +4,7 @@
 d
 e
 f
-g
+G
 h
 i
 j
`},
		// Changes 6 unchanged lines apart share a hunk, 7 apart do not, as
		// with diff -u (these are its outputs).
		{"two changes, one hunk", strings.Replace(strings.Replace(old, "a\n", "", 1), "g\n", "g\nh2\n", 1), `--- old
+++ new
@@ -1,10 +1,10 @@
-a
 b
 c
 d
 e
 f
 g
+h2
 h
 i
 j
`},
		{"two changes, two hunks", strings.Replace(strings.Replace(old, "a\n", "", 1), "h\n", "h\nh2\n", 1), `--- old
+++ new
@@ -1,4 +1,3 @@
-a
 b
 c
 d
@@ -6,6 +5,7 @@
 f
 g
 h
+h2
 i
 j
 k
`},
		{"two hunks", strings.Replace(strings.Replace(old, "b\n", "B\n", 1), "l\n", "L\n", 1), `--- old
+++ new
@@ -1,5 +1,5 @@
 a
-b
+B
 c
 d
 e
@@ -9,5 +9,5 @@
 i
 j
 k
-l
+L
 m
`},
		{"from nothing", "x\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n"},
		{"appended at the end", old + "n\n", "--- old\n+++ new\n@@ -11,3 +11,4 @@\n k\n l\n m\n+n\n"},
	} {
		from := old
		if tc.name == "from nothing" {
			from = ""
		}
		assert.Equal(t, tc.want, Unified("old", "new", from, tc.new), tc.name)
	}
}

// The edit script turns a into b and is as short as a longest common
// subsequence allows, for random texts over a small alphabet (many
// repeats, where a greedy diff goes wrong).
func TestDiffLinesIsShortest(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() []string {
		s := make([]string, r.IntN(12))
		for i := range s {
			s[i] = string(rune('a' + r.IntN(3)))
		}
		return s
	}
	for range 2000 {
		a, b := gen(), gen()
		ops := diffLines(a, b)
		var gotA, gotB []string
		changes := 0
		for _, op := range ops {
			if op.kind != '+' {
				gotA = append(gotA, op.text)
			}
			if op.kind != '-' {
				gotB = append(gotB, op.text)
			}
			if op.kind != ' ' {
				changes++
			}
		}
		assert.Equal(t, strings.Join(a, ""), strings.Join(gotA, ""))
		assert.Equal(t, strings.Join(b, ""), strings.Join(gotB, ""))
		assert.Equal(t, len(a)+len(b)-2*lcs(a, b), changes, "%q → %q", a, b)
	}
}

func lcs(a, b []string) int {
	dp := make([][]int, len(a)+1)
	for i := range dp {
		dp[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				dp[i][j] = dp[i+1][j+1] + 1
			} else {
				dp[i][j] = max(dp[i+1][j], dp[i][j+1])
			}
		}
	}
	return dp[0][0]
}

// Past maxEdits differing lines the middle of the texts is shown removed
// then added, so the work stays in proportion to the texts: a shortest
// script for 20,000 differing lines took 50 s and gigabytes (issue 30).
// BenchmarkUnifiedAllLinesDiffer measures it.
func TestUnifiedBoundsTheWork(t *testing.T) {
	t.Parallel()
	const n = 10000
	a, b := make([]string, n+2), make([]string, n+2)
	a[0], b[0] = "same first", "same first"
	a[n+1], b[n+1] = "same last", "same last"
	for i := 1; i <= n; i++ {
		a[i], b[i] = "old "+strings.Repeat("x", i%7), "new "+strings.Repeat("y", i%5)
	}
	got := Unified("old", "new", strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	lines := Lines(got)
	assert.Equal(t, []string{"--- old", "+++ new", "@@ -1,10002 +1,10002 @@", " same first"}, lines[:4])
	assert.Equal(t, "-"+a[1], lines[4])
	assert.Equal(t, "-"+a[n], lines[3+n])
	assert.Equal(t, "+"+b[1], lines[4+n])
	assert.Equal(t, "+"+b[n], lines[3+2*n])
	assert.Equal(t, " same last", lines[4+2*n])
	assert.Len(t, lines, 5+2*n)

	// Up to the bound the script is the shortest one.
	a, b = a[:maxEdits/2+1], append([]string(nil), a[:maxEdits/2+1]...)
	b[maxEdits/4] = "changed"
	var changes []string
	for _, line := range Lines(Unified("a", "b", strings.Join(a, "\n"), strings.Join(b, "\n")))[2:] {
		if line[0] == '-' || line[0] == '+' {
			changes = append(changes, line)
		}
	}
	assert.Equal(t, []string{"-" + a[maxEdits/4], "+changed"}, changes)
}

func BenchmarkUnifiedAllLinesDiffer(b *testing.B) {
	const n = 2000
	x, y := make([]string, n), make([]string, n)
	for i := range x {
		x[i], y[i] = "a"+strings.Repeat("x", i%7), "b"+strings.Repeat("y", i%5)
	}
	old, new := strings.Join(x, "\n"), strings.Join(y, "\n")
	b.ReportAllocs()
	for b.Loop() {
		Unified("old", "new", old, new)
	}
}
