package main

import (
	"fmt"
	"strings"
)

// diffContext is how many unchanged lines surround a change in a diff.
const diffContext = 3

// unifiedDiff returns a line diff of want and got in the unified format of
// diff -u (hunks of "-want" and "+got" lines with a little context), or ""
// when they are equal. Sessions are small enough for the quadratic longest
// common subsequence.
func unifiedDiff(wantName, gotName, want, got string) string {
	a := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	b := strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type edit struct {
		op   byte // ' ', '-', '+'
		line string
		i, j int // line numbers in a and b before this edit
	}
	var edits []edit
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			edits = append(edits, edit{' ', a[i], i, j})
			i++
			j++
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			edits = append(edits, edit{'-', a[i], i, j})
			i++
		default:
			edits = append(edits, edit{'+', b[j], i, j})
			j++
		}
	}
	var out strings.Builder
	for k := 0; k < len(edits); {
		if edits[k].op == ' ' {
			k++
			continue
		}
		// A hunk: from diffContext lines before this change to
		// diffContext lines after the last change close to it.
		start := max(k-diffContext, 0)
		end := k
		for end < len(edits) {
			if edits[end].op != ' ' {
				end++
				continue
			}
			run := end
			for run < len(edits) && edits[run].op == ' ' {
				run++
			}
			if run == len(edits) || run-end > 2*diffContext {
				end = min(end+diffContext, len(edits))
				break
			}
			end = run
		}
		var na, nb int
		for _, e := range edits[start:end] {
			if e.op != '+' {
				na++
			}
			if e.op != '-' {
				nb++
			}
		}
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", wantName, gotName)
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", edits[start].i+1, na, edits[start].j+1, nb)
		for _, e := range edits[start:end] {
			out.WriteByte(e.op)
			out.WriteString(e.line)
			out.WriteByte('\n')
		}
		k = end
	}
	return out.String()
}
