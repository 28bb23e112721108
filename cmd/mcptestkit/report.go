package main

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// ANSI colours, written only when stdout is a terminal.
const (
	ansiReset  = "\033[0m"
	ansiBold   = "\033[1m"
	ansiDim    = "\033[2m"
	ansiRed    = "\033[31m"
	ansiGreen  = "\033[32m"
	ansiYellow = "\033[33m"
	clearLine  = "\r\033[K"
)

// maxLine bounds a transcript line in the terminal report; the JSON and
// JUnit reports keep the lines whole.
const maxLine = 240

// textReport writes the terminal report as the checks finish, and a
// progress line on stderr while one runs, when stderr is a terminal.
type textReport struct {
	term      terminal
	verbose   bool
	showing   bool // a progress line is on the screen
	nameWidth int
}

func newTextReport(term terminal, verbose bool) *textReport {
	return &textReport{term: term, verbose: verbose, nameWidth: 36}
}

// paint colours s, which sprintf escaped (or a literal of this command).
func (t *textReport) paint(color string, s styled) styled {
	if !t.term.color {
		return s
	}
	return styled(color) + s + ansiReset
}

func (t *textReport) header(server string) {
	fprintf(t.term.stdout, "Checking %s\n\n", server)
}

// progress shows which check runs now.
func (t *textReport) progress(name string, done int) {
	if !t.term.progress {
		return
	}
	fprintf(t.term.stderr, "%s  [%d done] running %s ...", styled(clearLine), done, name)
	t.showing = true
}

func (t *textReport) clearProgress() {
	if t.showing {
		io.WriteString(t.term.stderr, clearLine)
		t.showing = false
	}
}

// check prints one finished check: a line, and for a failure its detail
// and transcript excerpt. The line is built from sprintf's pieces only.
func (t *textReport) check(c checkResult) {
	t.clearProgress()
	var head, body styled
	switch c.Status {
	case "pass":
		head = sprintf("%s  %s", t.paint(ansiGreen, "PASS"), c.Name)
		if c.Detail != "" && t.verbose {
			body = "\n" + t.paint(ansiDim, sprintf("%s", lines(indentLines(c.Detail, "      "))))
		}
	case "skip":
		head = sprintf("%s  %s", t.paint(ansiYellow, "SKIP"), c.Name)
		if c.Detail != "" {
			head += t.paint(ansiDim, sprintf(" (%s)", firstLine(c.Detail)))
		}
	default:
		label := t.paint(ansiRed+ansiBold, "FAIL")
		if c.Status == "warn" {
			label = t.paint(ansiYellow+ansiBold, "WARN")
		}
		head = sprintf("%s  %s", label, t.paint(ansiBold, sprintf("%s", c.Name)))
		if c.Detail != "" {
			body = sprintf("\n%s", lines(indentLines(c.Detail, "      ")))
		}
		if len(c.Transcript) > 0 {
			body += "\n      messages (→ to the server, ← from it):"
			for _, l := range c.Transcript {
				body += "\n" + t.paint(ansiDim, sprintf("        %s", cut(l, maxLine)))
			}
		}
	}
	if c.Status != "skip" && c.Duration >= 100*time.Millisecond {
		head += t.paint(ansiDim, sprintf(" (%.1fs)", c.Duration.Seconds()))
	}
	io.WriteString(t.term.stdout, string(head+body)+"\n")
}

// summary prints the line CI logs and people look for.
func (t *textReport) summary(r *report) {
	passed := sprintf("%d passed", r.Passed)
	failed := sprintf("%d failed", r.Failed)
	if r.Failed > 0 {
		failed = t.paint(ansiRed+ansiBold, failed)
	} else {
		passed = t.paint(ansiGreen, passed)
	}
	line := passed + ", " + failed
	if r.Skipped > 0 {
		line += sprintf(", %d skipped", r.Skipped)
	}
	if r.Warned > 0 {
		how := "counted as passed: they break a SHOULD, not a MUST; --strict fails them"
		if r.Strict {
			how = "counted as failed (--strict)"
		}
		fprintf(t.term.stdout, "\n%d check(s) warned, %s", r.Warned, how)
	}
	fprintf(t.term.stdout, "\n%s in %.1fs\n", line, r.Duration.Seconds())
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// cut shortens s to about n bytes, on a rune boundary, saying how much is
// left out.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return fmt.Sprintf("%s … (%d bytes more)", s[:i], len(s)-i)
}

func writeJSON(w io.Writer, rep *report) error {
	rep.Seconds = rep.Duration.Seconds()
	if rep.Checks == nil {
		rep.Checks = []checkResult{}
	}
	return writeIndented(w, rep)
}

// The JUnit XML report, in the shape of the JUnit XSD that CI systems read
// (testsuites > testsuite > testcase > failure | error | skipped), with the
// attributes it requires.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr"`
	Hostname  string      `xml:"hostname,attr"`
	ID        int         `xml:"id,attr"`
	Package   string      `xml:"package,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
	// Status is the check's status (pass, fail, skip, warn): the level
	// of a finding, which a failure alone cannot say.
	Status    string `xml:"status,attr,omitempty"`
	SystemOut string `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr,omitempty"`
}

const junitClass = "mcptestkit.check"

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', 3, 64) }

func writeJUnit(w io.Writer, rep *report) error {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	suite := junitSuite{
		Name:      "mcptestkit check " + rep.Server,
		Tests:     len(rep.Checks),
		Failures:  rep.Failed,
		Skipped:   rep.Skipped,
		Time:      seconds(rep.Duration),
		Timestamp: rep.started.UTC().Format("2006-01-02T15:04:05"),
		Hostname:  host,
		Package:   junitClass,
		Cases:     []junitCase{},
	}
	for _, c := range rep.Checks {
		jc := junitCase{Name: c.Name, Classname: junitClass, Time: seconds(c.Duration), Status: c.Status}
		switch c.Status {
		case "fail":
			text := c.Detail
			if len(c.Transcript) > 0 {
				text += "\n\nmessages (→ to the server, ← from it):\n" + strings.Join(c.Transcript, "\n")
			}
			jc.Failure = &junitProblem{Message: firstLine(c.Detail), Type: "check", Text: text}
		case "warn":
			// JUnit has no warning: a strict run fails the case; otherwise
			// it passes, with the warning as its output.
			if rep.Strict {
				jc.Failure = &junitProblem{Message: firstLine(c.Detail), Type: "warning", Text: c.Detail}
			} else {
				jc.SystemOut = "warning: " + c.Detail
			}
		case "skip":
			jc.Skipped = &junitSkipped{Message: firstLine(c.Detail)}
		}
		suite.Cases = append(suite.Cases, jc)
	}
	if rep.Error != "" {
		// The run did not happen or did not finish: a test case in error,
		// so that CI shows why.
		stage := cmp.Or(rep.stage, "run")
		suite.Tests++
		suite.Errors = 1
		suite.Cases = append(suite.Cases, junitCase{Name: stage, Classname: junitClass, Time: "0.000",
			Error: &junitProblem{Message: rep.Error, Type: stage, Text: rep.Error}})
	}
	all := junitSuites{
		Name: "mcptestkit", Tests: suite.Tests, Failures: suite.Failures, Errors: suite.Errors,
		Skipped: suite.Skipped, Time: suite.Time, Suites: []junitSuite{suite},
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
