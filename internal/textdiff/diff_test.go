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
