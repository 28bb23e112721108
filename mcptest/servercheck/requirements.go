package servercheck

import (
	"slices"
	"strings"
)

//go:generate go run ./internal/reqgen -spec=$MCP_SPEC -tasks=$MCP_EXT_TASKS -spec-commit=$MCP_SPEC_COMMIT -tasks-commit=$MCP_EXT_TASKS_COMMIT
//go:generate env MCPTEST_UPDATE=1 go test -run TestRequirementsDoc .

// A Requirement is one sentence of the MCP specification that binds a
// server, and what judges it: the checks of this package and the rules of
// the protocol monitor that every mcptest connection runs, or why none can.
type Requirement struct {
	// ID names the sentence: the first revision that says it, its page,
	// section and the first words of what it requires.
	ID string
	// Level is MUST, MUST NOT, SHOULD or SHOULD NOT (REQUIRED and SHALL
	// read as MUST, RECOMMENDED as SHOULD).
	Level string
	// Revisions are the protocol versions whose text says it, word for word;
	// Sections the address of the sentence's section in each.
	Revisions, Sections []string
	// Text is the sentence, quoted.
	Text string
	// Checks are the checks and the monitor rules ("monitor/...") that
	// judge it, named as in the package's check list: a family of checks
	// by its placeholder (the Result "tools/calls/get_author" is of
	// "tools/calls/<tool>").
	Checks []string
	// Reason, when no check judges it, says why: a kind (one of "not
	// observable", "needs a fixture", "needs authorization", "client rule",
	// "transport layer", "not checked yet"), a colon, and a sentence.
	Reason string
}

// Requirements returns the table: every normative sentence of the
// specification (2025-11-25 and 2026-07-28, with the tasks extension) that
// binds a server, in the order of its pages.
func Requirements() []Requirement {
	out := make([]Requirement, 0, len(specRows))
	for _, r := range specRows {
		m, _ := judge(r.id)
		out = append(out, Requirement{ID: r.id, Level: r.level, Revisions: slices.Clone(r.revs),
			Sections: slices.Clone(r.sections), Text: r.text, Checks: slices.Clone(m.checks), Reason: m.reason})
	}
	return out
}

// specRow is one generated row (requirements_table.go).
type specRow struct {
	id, level      string
	revs, sections []string
	text           string
}

// judgement maps rows to what judges them: an ID, or a prefix of IDs
// ending in "/" (a section's rows that no longer entry names).
type judgement struct {
	id     string
	checks []string
	reason string
}

// judge finds a row's judgement: the entry naming it, else the longest
// prefix entry.
func judge(id string) (judgement, bool) {
	best := -1
	for i, j := range judgements {
		if j.id == id {
			return j, true
		}
		if strings.HasSuffix(j.id, "/") && strings.HasPrefix(id, j.id) && (best < 0 || len(j.id) > len(judgements[best].id)) {
			best = i
		}
	}
	if best < 0 {
		return judgement{}, false
	}
	return judgements[best], true
}

// The reason kinds.
const (
	notObservable  = "not observable: "      // what the server does inside, or towards others than the client
	needsFixture   = "needs a fixture: "     // needs server-specific state or a tool that does a given thing
	needsAuth      = "needs authorization: " // needs an authorization server and tokens; the checks run without
	clientRule     = "client rule: "         // binds the client, or the requesting side, which the checks play
	transportLayer = "transport layer: "     // framing or HTTP that the transport itself enforces or cannot vary
	notYet         = "not checked yet: "     // a client could see it; no check does yet
)

var reasonKinds = []string{notObservable, needsFixture, needsAuth, clientRule, transportLayer, notYet}

func by(id string, checks ...string) judgement { return judgement{id: id, checks: checks} }
func why(id, kind, text string) judgement      { return judgement{id: id, reason: kind + text} }
