package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// A baseline is the findings a team has accepted for now: with --baseline,
// check fails only on a finding not in it (a regression), so that the kit
// can be adopted on a server with known findings and the list ratcheted
// down, as surface --require ratchets coverage. A finding is keyed by its
// check's rule and subject (tools/calls/<tool> and the tool), never by its
// message, whose detail changes from run to run; the file is sorted, one
// finding a line, so that its diffs read well in review.
type baseline struct {
	// Version is the file format's, 1.
	Version  int             `json:"version"`
	Findings []baselineEntry `json:"findings"`
}

type baselineEntry struct {
	// Check is the rule: a check's name, or its family's
	// ("tools/calls/<tool>").
	Check string `json:"check"`
	// Subject is what a family's check is about: the tool, prompt or
	// resource in place of the placeholder.
	Subject string `json:"subject,omitempty"`
	// Status is fail or warn: a baseline warning does not cover the same
	// check failing.
	Status string `json:"status"`
}

func (e baselineEntry) String() string {
	if e.Subject == "" {
		return e.Check
	}
	return e.Check[:strings.LastIndexByte(e.Check, '/')+1] + e.Subject
}

// entry is the baseline key of a finding.
func entry(c checkResult) baselineEntry {
	check := c.rule.ID
	if check == "" {
		check = c.Name
	}
	return baselineEntry{Check: check, Subject: subject(c), Status: c.Status}
}

// baselineOf returns the findings of rep that a baseline holds: failures
// and warnings.
func baselineOf(rep *report) *baseline {
	b := &baseline{Version: 1, Findings: []baselineEntry{}}
	for _, c := range rep.Checks {
		if c.Status == "fail" || c.Status == "warn" {
			b.Findings = append(b.Findings, entry(c))
		}
	}
	slices.SortFunc(b.Findings, func(x, y baselineEntry) int {
		return cmp.Or(cmp.Compare(x.Check, y.Check), cmp.Compare(x.Subject, y.Subject), cmp.Compare(x.Status, y.Status))
	})
	b.Findings = slices.Compact(b.Findings)
	return b
}

func readBaseline(file string) (*baseline, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("--baseline %s: no such file; write it with --update-baseline", file)
	}
	if err != nil {
		return nil, fmt.Errorf("--baseline: %v", err)
	}
	var b baseline
	if err := json.Unmarshal(data, &b); err != nil {
		return nil, fmt.Errorf("--baseline %s: not a baseline: %v", file, err)
	}
	if b.Version != 1 {
		return nil, fmt.Errorf("--baseline %s: version %d; this mcptestkit reads version 1", file, b.Version)
	}
	return &b, nil
}

// write writes b to file: indented, one finding a line.
func (b *baseline) write(file string) error {
	var s strings.Builder
	s.WriteString("{\n  \"version\": 1,\n  \"findings\": [")
	for i, e := range b.Findings {
		var line strings.Builder
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false) // "<tool>" as it is written
		if err := enc.Encode(e); err != nil {
			return err
		}
		if i > 0 {
			s.WriteString(",")
		}
		s.WriteString("\n    " + strings.TrimSuffix(line.String(), "\n"))
	}
	if len(b.Findings) > 0 {
		s.WriteString("\n  ")
	}
	s.WriteString("]\n}\n")
	return os.WriteFile(file, []byte(s.String()), 0o644)
}

// covers reports whether b holds the finding c, at its status or a worse one.
func (b *baseline) covers(c checkResult) bool {
	e := entry(c)
	for _, known := range b.Findings {
		if known.Check == e.Check && known.Subject == e.Subject && (known.Status == e.Status || known.Status == "fail") {
			return true
		}
	}
	return false
}

// judge returns the failing checks of rep (failures, and warnings when
// strict) that b does not hold, and the entries of b no check found.
func (b *baseline) judge(rep *report) (regressions []string, gone []baselineEntry) {
	now := baselineOf(rep)
	for _, c := range rep.Checks {
		failing := c.Status == "fail" || c.Status == "warn" && rep.Strict
		if failing && !b.covers(c) {
			regressions = append(regressions, c.Name)
		}
	}
	passed := map[string]bool{}
	for _, c := range rep.Checks {
		passed[c.Name] = c.Status == "pass"
	}
	for _, e := range b.Findings {
		// Only a check that ran and passed says a finding is gone: --run
		// may have left the others out.
		if passed[e.String()] && !slices.ContainsFunc(now.Findings, func(n baselineEntry) bool { return n.Check == e.Check && n.Subject == e.Subject }) {
			gone = append(gone, e)
		}
	}
	return regressions, gone
}
