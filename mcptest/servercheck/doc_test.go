package servercheck_test

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The package documentation lists every check with its level: a check the
// list lacks, or a listed one that no longer runs, fails here. The checks
// that run once per tool, resource or prompt are matched by their
// placeholder (tools/calls/<tool>); the small stdio server has none, so the
// rest of the list is checked against what it reports.
func TestDocumentationListsEveryCheck(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	require.NoError(t, err)
	entry := regexp.MustCompile(`(?m)^//\t([a-z][^ ]*(?:, [a-z][^ ]*)*)\s+[FW] `)
	var patterns []string
	for _, m := range entry.FindAllStringSubmatch(string(doc), -1) {
		patterns = append(patterns, strings.Split(m[1], ", ")...)
	}
	require.NotEmpty(t, patterns, "no check list in doc.go")
	matches := func(pattern, name string) bool {
		p := regexp.QuoteMeta(pattern)
		p = regexp.MustCompile(`<[a-z]+>`).ReplaceAllString(strings.NewReplacer(`\<`, "<", `\>`, ">").Replace(p), `[^/]+`)
		return regexp.MustCompile("^" + p + "$").MatchString(name)
	}

	var names []string
	err = servercheck.Run(t.Context(), servercheck.Command(exec.Command(buildStdioServer(t)), transport.WithGracePeriod(time.Second)), &servercheck.Options{
		OnResult: func(r servercheck.Result) { names = append(names, r.Name) },
	})
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, name := range names {
		found := false
		for _, p := range patterns {
			if matches(p, name) {
				found, seen[p] = true, true
			}
		}
		assert.True(t, found, "check %q is not in the package documentation's list", name)
	}
	for _, p := range patterns {
		if !strings.Contains(p, "<") || strings.HasPrefix(p, "handshake/") {
			assert.True(t, seen[p], "the package documentation lists %q, which no longer runs", p)
		}
	}
}
