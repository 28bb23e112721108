package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// A server controls most of the text this command prints: names,
// descriptions, URIs, error messages, its stderr. A terminal obeys control
// characters in it (a new window title, a cleared screen, a planted link, a
// FAIL line overwritten after a carriage return), so every human-readable
// line is written through fprintf or sprintf, whose format is this
// command's own layout and whose arguments are data, printed escaped:
//
//   - a C0 control, DEL or a byte that is not UTF-8 as \xNN (\n, \r and \t
//     as themselves, backslash and letter), a C1 control or a bidirectional
//     override as \uNNNN: visible, and read as what it is;
//   - a plain argument is one field of a line, so its \n and \t are escaped
//     too and it cannot break the layout; a [lines] argument keeps them;
//   - a [styled] argument is this command's own (already escaped, or
//     coloured): written as it is.
//
// JSON output goes through writeIndented and jsonSafe instead: it stays
// valid JSON that means the same.

// lines is text laid out in lines (a check's detail, an error that quotes a
// server's stderr): its newlines and tabs are kept, the rest is escaped.
type lines string

// styled is text this command made: escaped already, or its own colours.
type styled string

// fprintf is fmt.Fprintf with every argument escaped (see above).
func fprintf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format, escapeArgs(args)...)
}

// sprintf is fmt.Sprintf with every argument escaped (see above).
func sprintf(format string, args ...any) styled {
	return styled(fmt.Sprintf(format, escapeArgs(args)...))
}

func escapeArgs(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch a := a.(type) {
		case styled:
			out[i] = string(a)
		case lines:
			out[i] = escaped{string(a), true}
		default:
			out[i] = escaped{a, false}
		}
	}
	return out
}

// escaped formats its value with the verb it is printed with, then escapes
// the result.
type escaped struct {
	v         any
	keepLines bool
}

func (e escaped) Format(f fmt.State, verb rune) {
	io.WriteString(f, escape(fmt.Sprintf(fmt.FormatString(f, verb), e.v), e.keepLines))
}

// escape escapes s as the comment at the top of this file says; keepLines
// keeps newlines (a CR before one goes: a Windows line end) and tabs.
func escape(s string, keepLines bool) string {
	if printable(s, keepLines) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case keepLines && r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// printable reports whether escape leaves s as it is (a U+FFFD, which may
// stand for a byte that is not UTF-8, takes the long way).
func printable(s string, keepLines bool) bool {
	for _, r := range s {
		if r < 0x20 && !(keepLines && (r == '\n' || r == '\t')) || r == 0x7f || r == utf8.RuneError || unsafeRune(r) {
			return false
		}
	}
	return true
}

// unsafeRune reports whether a terminal may act on r although it is valid
// UTF-8: a C1 control (U+0080-U+009F; U+009B is CSI), or a bidirectional
// embedding, override or isolate, which reorders what a line shows.
func unsafeRune(r rune) bool {
	return 0x80 <= r && r <= 0x9f || 0x202a <= r && r <= 0x202e || 0x2066 <= r && r <= 0x2069
}

// jsonSafe escapes in JSON text what a terminal may act on and encoding/json
// leaves as it is (DEL, C1 controls, bidirectional overrides; it escapes
// the C0 controls itself), and replaces bytes that are not UTF-8 with
// U+FFFD. In valid JSON these occur only inside strings, where the escape
// means the same character.
func jsonSafe(b []byte) []byte {
	if printable(string(b), true) {
		return b
	}
	var out bytes.Buffer
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			out.WriteString(`\ufffd`)
		case r == 0x7f || unsafeRune(r):
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.Write(b[i : i+n])
		}
		i += n
	}
	return out.Bytes()
}

// writeIndented writes v as indented JSON, made safe for a terminal.
func writeIndented(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonSafe(b.Bytes()))
	return err
}
