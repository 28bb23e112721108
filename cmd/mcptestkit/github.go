package main

import (
	"fmt"
	"html"
	"io"
	"os"
	"strings"
)

// What a check run leaves where CI users look: the markdown summary
// (--format markdown, and on GitHub Actions the job's step summary) and,
// on GitHub Actions, a workflow-command annotation per finding, which
// GitHub shows on the pull request's lines.

// writeMarkdown writes the run as markdown: a table of the counts, then
// each failure and warning with its detail folded.
func writeMarkdown(w io.Writer, rep *report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## mcptestkit check: %s\n\n", mdText(rep.Server))
	if rep.Error != "" {
		fmt.Fprintf(&b, "**The run did not complete:** %s\n\n", mdText(rep.Error))
	}
	fails := rep.Failed
	if rep.Strict {
		fails -= rep.Warned // counted in both, shown once
	}
	b.WriteString("| result | checks |\n|---|---:|\n")
	fmt.Fprintf(&b, "| ✅ passed | %d |\n", rep.Passed-passedWarnings(rep))
	fmt.Fprintf(&b, "| ❌ failed | %d |\n", fails)
	how := "counted as passed"
	if rep.Strict {
		how = "counted as failed: --strict"
	}
	fmt.Fprintf(&b, "| ⚠️ warned (%s) | %d |\n", how, rep.Warned)
	fmt.Fprintf(&b, "| ⏭️ skipped | %d |\n", rep.Skipped)
	for _, section := range []struct{ status, title, icon string }{
		{"fail", "Failures", "❌"}, {"warn", "Warnings", "⚠️"},
	} {
		first := true
		for _, c := range rep.Checks {
			if c.Status != section.status {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n### %s\n", section.title)
				first = false
			}
			fmt.Fprintf(&b, "\n<details><summary>%s <code>%s</code>: %s</summary>\n\n",
				section.icon, html.EscapeString(c.Name), html.EscapeString(cut(firstLine(c.Detail), 300)))
			body := c.Detail
			if len(c.Transcript) > 0 {
				body += "\n\nmessages (→ to the server, ← from it):\n" + strings.Join(c.Transcript, "\n")
			}
			fence := codeFence(body)
			fmt.Fprintf(&b, "%s\n%s\n%s\n\n</details>\n", fence, body, fence)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// passedWarnings is how many warnings rep counts among the passed.
func passedWarnings(rep *report) int {
	if rep.Strict {
		return 0
	}
	return rep.Warned
}

// mdText escapes what markdown would read as markup or HTML in one line.
func mdText(s string) string {
	s = strings.ReplaceAll(firstLine(s), "\r", "")
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]()#+-.!|<>&", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// codeFence is a fence of backticks longer than any run of them in s, so
// that nothing in s closes the block.
func codeFence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

// github is what a run on GitHub Actions writes besides its report.
type github struct {
	summaryFile string // $GITHUB_STEP_SUMMARY, "" for none
}

// onGitHub returns the GitHub Actions output of this process, or nil when
// it does not run there.
func onGitHub() *github {
	if os.Getenv("GITHUB_ACTIONS") != "true" {
		return nil
	}
	return &github{summaryFile: os.Getenv("GITHUB_STEP_SUMMARY")}
}

// report writes an annotation per finding on w (the runner reads workflow
// commands from stdout and stderr alike; stderr keeps a JSON or SARIF
// report on stdout clean) and appends the markdown to the step summary.
func (g *github) report(w io.Writer, rep *report, loc *locator) error {
	for _, f := range findings(rep) {
		io.WriteString(w, annotation(f, where(loc, f.checkResult))+"\n")
	}
	if rep.Error != "" {
		io.WriteString(w, workflowCommand("error", map[string]string{"title": "mcptestkit check"}, rep.Error)+"\n")
	}
	if g.summaryFile == "" {
		return nil
	}
	f, err := os.OpenFile(g.summaryFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %v", err)
	}
	if err := writeMarkdown(f, rep); err != nil {
		f.Close()
		return fmt.Errorf("GITHUB_STEP_SUMMARY: %v", err)
	}
	return f.Close()
}

// annotation is the workflow command of one finding: error, warning or
// notice, on its source line when there is one.
func annotation(f finding, p position) string {
	kind := map[string]string{"error": "error", "warning": "warning", "note": "notice"}[f.level]
	props := map[string]string{"title": "mcptestkit " + f.Name}
	if p.File != "" {
		props["file"] = p.File
		props["line"] = fmt.Sprint(p.Line)
	}
	return workflowCommand(kind, props, cut(f.Detail, 4000))
}

// workflowCommand formats "::kind file=F,line=L,title=T::message" with
// GitHub's escaping (that of @actions/core's command.ts): in the message
// %, CR and LF; in a property also ":" and ",".
func workflowCommand(kind string, props map[string]string, msg string) string {
	var b strings.Builder
	b.WriteString("::" + kind)
	sep := " "
	for _, k := range []string{"file", "line", "title"} { // a stable order
		if v, ok := props[k]; ok {
			b.WriteString(sep + k + "=" + escapeProperty(v))
			sep = ","
		}
	}
	b.WriteString("::" + escapeData(msg))
	return b.String()
}

func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
