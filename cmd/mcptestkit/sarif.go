package main

import (
	"io"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The SARIF 2.1.0 report, for code scanning (GitHub's upload-sarif) and any
// SARIF viewer: a rule per row of the check table that has a finding, with
// its specification citation and level (a MUST: error, a SHOULD or a
// convention: warning, a lint note: note), and a result per finding.

const informationURI = "https://github.com/mcptestkit/mcptestkit"

// sarifLevel is the SARIF level of a rule of the given level.
func sarifLevel(level servercheck.Status) string {
	switch level {
	case servercheck.Fail:
		return "error"
	case servercheck.Warn:
		return "warning"
	}
	return "note"
}

// finding is one check that found something: a failure, a warning, or a
// lint rule's note.
type finding struct {
	checkResult
	level string // error, warning or note
}

// findings returns the checks of rep that found something, in order.
func findings(rep *report) []finding {
	var out []finding
	for _, c := range rep.Checks {
		switch {
		case c.Status == "fail":
			out = append(out, finding{c, "error"})
		case c.Status == "warn":
			out = append(out, finding{c, "warning"})
		case c.Status == "pass" && c.Detail != "" && isLint(c.rule.ID) && c.rule.ID != "lint/tokens":
			// A lint note; lint/tokens's, a measurement under budget, is no finding.
			out = append(out, finding{c, "note"})
		}
	}
	return out
}

// isLint reports whether a rule is one of the lint of the model-facing
// surface, whose passing checks carry notes worth showing.
func isLint(rule string) bool { return strings.HasPrefix(rule, "lint/") }

// subject is what a check of a family is about (the tool of
// tools/calls/<tool>), "" for a check that is not of a family.
func subject(c checkResult) string {
	if !strings.HasSuffix(c.rule.ID, ">") {
		return ""
	}
	return c.Name[strings.LastIndexByte(c.Name, '/')+1:]
}

// where returns the source line a finding belongs on, if the server's
// source is here.
func where(loc *locator, c checkResult) position {
	if loc == nil {
		return position{}
	}
	if s := subject(c); s != "" {
		return loc.tool(s)
	}
	return loc.entry
}

func writeSARIF(w io.Writer, rep *report, loc *locator) error {
	log, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	driver := sarif.NewDriver("mcptestkit").WithInformationURI(informationURI)
	run := sarif.NewRun(*sarif.NewTool(driver))
	run.Results = []*sarif.Result{}
	inv := run.AddInvocation(rep.Error == "")
	if rep.Error != "" {
		inv.WithExecutionSuccess(false)
		inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications,
			sarif.NewNotification().WithLevel("error").WithTextMessage(rep.Error))
	}
	// The specification's sentences each rule judges, from the
	// requirement table.
	judged := map[string][]string{}
	for _, req := range servercheck.Requirements() {
		for _, c := range req.Checks {
			judged[c] = append(judged[c], req.Level+": "+req.Text+" ("+req.ID+")")
		}
	}
	for _, f := range findings(rep) {
		r := f.rule
		if r.ID == "" {
			r.ID = f.Name
		}
		rule := run.AddRule(r.ID).
			WithShortDescription(sarif.NewMultiformatMessageString(firstSentence(r.Doc, r.ID))).
			WithFullDescription(sarif.NewMultiformatMessageString(r.Doc + " (" + r.Spec + ")")).
			WithHelpURI(informationURI + "/tree/main/mcptest/servercheck").
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(sarifLevel(r.Level)))
		props := sarif.Properties{"spec": r.Spec, "tags": []string{"mcp"}}
		if reqs := judged[r.ID]; len(reqs) > 0 {
			props["requirements"] = reqs
			rule.WithTextHelp(strings.Join(reqs, "\n"))
		}
		rule.WithProperties(props)
		res := run.CreateResultForRule(r.ID).
			WithLevel(f.level).
			WithMessage(sarif.NewTextMessage(f.Name + ": " + cut(f.Detail, 8000)))
		// What identifies a finding from one run to the next: the check
		// and its subject, never the message, whose detail changes.
		res.WithPartialFingerPrints(map[string]any{"mcptestkitCheck/v1": f.Name})
		if p := where(loc, f.checkResult); p.File != "" {
			res.AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
				WithArtifactLocation(sarif.NewSimpleArtifactLocation(p.File)).
				WithRegion(sarif.NewSimpleRegion(p.Line, p.Line))))
		}
	}
	log.AddRun(run)
	return log.PrettyWrite(w)
}

// firstSentence is the first sentence of doc, or def when doc is empty.
func firstSentence(doc, def string) string {
	if doc == "" {
		return def
	}
	if i := strings.Index(doc, ". "); i > 0 {
		return doc[:i+1]
	}
	return doc
}
