package textdiff

import (
	"fmt"
	"strings"
)

// Unified returns the difference between two texts as diff -u prints
// it: "---" and "+++" naming them, then hunks of changed lines with three
// lines of context, each under an "@@ -line,count +line,count @@" header
// whose numbers are the lines in the files. It returns "" when the texts
// are equal.
func Unified(oldName, newName, oldText, newText string) string {
	a, b := Lines(oldText), Lines(newText)
	ops := diffLines(a, b)
	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	changed := false
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		changed = true
		// A hunk runs from context lines before this change to context lines
		// after the last change that is at most 2*context lines further on.
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(len(ops), end+context)
		writeHunk(&out, ops[start:end])
		i = end
	}
	if !changed {
		return ""
	}
	return out.String()
}

func writeHunk(out *strings.Builder, ops []edit) {
	first := ops[0]
	var oldCount, newCount int
	for _, op := range ops {
		if op.kind != '+' {
			oldCount++
		}
		if op.kind != '-' {
			newCount++
		}
	}
	// diff -u numbers an empty side by the line before it.
	oldStart, newStart := first.oldLine, first.newLine
	if oldCount == 0 {
		oldStart--
	}
	if newCount == 0 {
		newStart--
	}
	fmt.Fprintf(out, "@@ -%s +%s @@\n", hunkRange(oldStart, oldCount), hunkRange(newStart, newCount))
	for _, op := range ops {
		out.WriteByte(op.kind)
		out.WriteString(op.text)
		out.WriteByte('\n')
	}
}

func hunkRange(start, count int) string {
	if count == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, count)
}

// Lines splits text into lines without their newlines; a final
// newline does not start another line.
func Lines(text string) []string {
	if text == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// edit is one line of an edit script: kept (' '), deleted from the old text
// ('-') or inserted from the new one ('+'), with its 1-based line numbers in
// each text (the line it would have, for the side it is not in).
type edit struct {
	kind             byte
	text             string
	oldLine, newLine int
}

// maxEdits bounds the work of a diff: past this many differing lines the
// middle of the texts (between their common first and last lines) is shown
// as removed and then added, which is what a reader would make of so many
// changes anyway, and it costs time and memory in proportion to the texts
// instead of to the square of the difference.
const maxEdits = 1000

// diffLines returns an edit script turning a into b: the shortest one
// (Myers' algorithm, "An O(ND) Difference Algorithm and Its Variations",
// 1986) when at most maxEdits lines differ.
func diffLines(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]edit, 0, len(a)+len(b)-pre-suf)
	for i := range pre {
		ops = append(ops, edit{' ', a[i], i + 1, i + 1})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(ma, mb)
	if !ok {
		mid = mid[:0]
		for i, line := range ma {
			mid = append(mid, edit{'-', line, i + 1, 1})
		}
		for j, line := range mb {
			mid = append(mid, edit{'+', line, len(ma) + 1, j + 1})
		}
	}
	for _, e := range mid {
		e.oldLine += pre
		e.newLine += pre
		ops = append(ops, e)
	}
	for i := range suf {
		x, y := len(a)-suf+i, len(b)-suf+i
		ops = append(ops, edit{' ', a[x], x + 1, y + 1})
	}
	return ops
}

// myers returns the shortest edit script turning a into b, or false when it
// has more than maxEdits edits. Each round keeps only the diagonals it
// reached, so memory grows with the square of the difference, not with the
// texts times the difference.
func myers(a, b []string) ([]edit, bool) {
	n, m := len(a), len(b)
	maxD := min(n+m, maxEdits)
	offset := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int // trace[d] is v[-d-1 .. d+1] as round d found it
	done := false
	for d := 0; d <= maxD && !done; d++ {
		trace = append(trace, append([]int(nil), v[offset-d-1:offset+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[offset+k-1] < v[offset+k+1]) {
				x = v[offset+k+1] // down: an insertion
			} else {
				x = v[offset+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[offset+k] = x
			if x >= n && y >= m {
				done = true
				break
			}
		}
	}
	if !done {
		return nil, false
	}
	// Walk the trace back from (n, m), collecting the edits in reverse.
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		at := func(k int) int { return trace[d][k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, edit{' ', a[x], x + 1, y + 1})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			y--
			rev = append(rev, edit{'+', b[y], x + 1, y + 1})
		} else {
			x--
			rev = append(rev, edit{'-', a[x], x + 1, y + 1})
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev, true
}
