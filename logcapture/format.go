package logcapture

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcptestkit/mcptestkit/internal/stacktrace"
)

// What a failure prints of the records is bounded, so that a test that
// captured a million records fails with a message a person can read: past
// the bounds the records go to a file, which the message names.
const (
	shownRecords = 200
	shownBytes   = 64 << 10
)

// formatShown is formatRecords within the bounds. When recs are too many and
// mark is given, the records it selects are the ones shown (they are what
// an assertion is about); the line after them says how many were left out
// and where all of them are.
func formatShown(recs []Record, mark func(Record) bool) string {
	text := formatRecords(recs[:min(len(recs), shownRecords+1)], mark)
	if len(recs) <= shownRecords && len(text) <= shownBytes {
		return text
	}
	shown := recs
	if mark != nil {
		shown = nil
		for _, r := range recs {
			if mark(r) {
				shown = append(shown, r)
			}
		}
	}
	shown = shown[:min(len(shown), shownRecords)]
	text = formatRecords(shown, mark)
	if len(text) > shownBytes {
		cut := strings.LastIndexByte(text[:shownBytes], '\n') + 1
		if cut == 0 { // one long record: cut it inside, at a rune's start
			for cut = shownBytes; cut > 0 && !utf8.RuneStart(text[cut]); cut-- {
			}
		}
		text = text[:cut] + "…\n"
	}
	where := "; go test -v does not print them either"
	if file, err := writeAll(recs, mark); err == nil {
		where = "; all of them are in " + file
	}
	return text + fmt.Sprintf("(%d records, %d of them shown, %s of text at most%s)\n", len(recs), len(shown), "64 KiB", where)
}

// writeAll writes every record to a new file in the temporary directory,
// which outlives the test, and returns its name.
func writeAll(recs []Record, mark func(Record) bool) (string, error) {
	f, err := os.CreateTemp("", "logcapture-*.log")
	if err != nil {
		return "", err
	}
	w := bufio.NewWriter(f)
	err = writeRecords(w, recs, mark)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// formatRecords writes one record per line; if mark is not nil, records it
// selects are prefixed with "> " and the others with "  ". A stack with the
// frames of one written above is written as a note, so that a handler that
// crashed many times the same way does not bury the listing in copies.
func formatRecords(recs []Record, mark func(Record) bool) string {
	var b strings.Builder
	writeRecords(&b, recs, mark) // a strings.Builder does not fail
	return b.String()
}

// writeRecords writes recs to w as formatRecords lays them out.
func writeRecords(w io.Writer, recs []Record, mark func(Record) bool) error {
	var b strings.Builder
	stacks := map[string]int{}
	for _, r := range recs {
		prefix := ""
		if mark != nil {
			prefix = "  "
			if mark(r) {
				prefix = "> "
			}
		}
		b.Reset()
		writeRecord(&b, r, prefix, stacks)
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// writeRecord writes r as
//
//	ERROR message key=value key2="two words" (file.go:12)
//	    stack:
//	        goroutine 7 [running]:
//	        ...
//
// Multi-line values (stacks, wrapped errors) go in indented blocks after the
// line so that they stay readable. Like pytest's captured log, it leaves the
// time out: the order of the lines is what a reader needs, and the text stays
// the same from run to run. stacks, if not nil, counts the stacks (their
// frames) written so far: a stack written before becomes a one-line note.
func writeRecord(b *strings.Builder, r Record, prefix string, stacks map[string]int) {
	b.WriteString(prefix)
	fmt.Fprintf(b, "%-5s %s", r.Level, r.Message)
	var blocks []attr
	for _, a := range r.attrs {
		text := valueText(a.value)
		if strings.Contains(text, "\n") {
			blocks = append(blocks, a)
			continue
		}
		b.WriteByte(' ')
		b.WriteString(a.path())
		b.WriteByte('=')
		b.WriteString(quoteIfNeeded(text))
	}
	if src := r.Source(); src != nil && src.File != "" {
		fmt.Fprintf(b, " (%s:%d)", filepath.Base(src.File), src.Line)
	}
	indent := strings.Repeat(" ", len(prefix))
	for _, a := range blocks {
		fmt.Fprintf(b, "\n%s    %s:", indent, a.path())
		if stacks != nil && a.key == StackKey {
			frames := stacktrace.Frames(valueText(a.value))
			if stacks[frames]++; stacks[frames] > 1 {
				fmt.Fprintf(b, " the same as written above (record %d with this stack)", stacks[frames])
				continue
			}
		}
		for line := range strings.SplitSeq(strings.TrimRight(valueText(a.value), "\n"), "\n") {
			b.WriteString("\n" + indent + "        " + line)
		}
	}
}

// quoteValue renders a wanted value in a matcher description; strings are
// always quoted so that "5" and 5 read differently.
func quoteValue(v slog.Value) string {
	if v.Kind() == slog.KindString {
		return strconv.Quote(v.String())
	}
	return quoteIfNeeded(valueText(v))
}

// quoteIfNeeded quotes s when it is empty or holds spaces, quotes, '=' or
// non-printable characters, the way slog's TextHandler does.
func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	for _, c := range s {
		if unicode.IsSpace(c) || c == '"' || c == '=' || !unicode.IsPrint(c) {
			return strconv.Quote(s)
		}
	}
	return s
}
