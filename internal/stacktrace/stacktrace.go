package stacktrace

import "strings"

// Frames returns what stays the same in trace from one goroutine to the next
// running the same code: each frame's function and file:line, a line each.
// The goroutine's header and id, the arguments' values and the program
// counter offsets, which differ between two crashes of one handler, are
// left out; so two traces are of the same code when their Frames are equal.
func Frames(trace string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(strings.TrimRight(trace, "\n"), "\n") {
		switch {
		case strings.HasPrefix(line, "goroutine "): // "goroutine 7 [running]:"
			continue
		case strings.HasPrefix(line, "\t"): // "\t/src/file.go:12 +0x25"
			line, _, _ = strings.Cut(line, " +0x")
		case strings.HasPrefix(line, "created by "): // "created by pkg.F in goroutine 6"
			if i := strings.LastIndex(line, " in goroutine "); i >= 0 {
				line = line[:i]
			}
		case strings.HasSuffix(line, ")"): // "pkg.(*T).M(0xc000012345, ...)"
			if i := strings.LastIndex(line, "("); i >= 0 {
				line = line[:i]
			}
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}
