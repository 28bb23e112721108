package bookshop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/examples/bookshop"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// What a reviewer reads when a change to the tools fails TestToolsSnapshot:
// Golden says, above the diff, which changes break clients. Here the golden
// file is the tools of an older release (testdata/release-0.9/tools.json),
// which had a search_catalog tool since removed (breaking) and another
// description of get_author (compatible). The same report, from the command
// line, exits 1 because of the breaking change:
//
//	mcptestkit diff testdata/release-0.9/tools.json testdata/tools.json
func TestToolsDriftSinceRelease09(t *testing.T) {
	t.Setenv("MCPTEST_UPDATE", "0") // this file is a release's: never rewrite it
	c := mcptest.Connect(t, gosdktest.Server(bookshop.New(logcapture.New(t).Logger())))
	list, err := c.ListTools(t.Context(), "")
	require.NoError(t, err)

	var review failures
	assert.False(t, mcptest.Assert(&review).Golden("release-0.9/tools", list))
	report := review.String()
	assert.Contains(t, report, `schema drift: 1 breaking, 1 compatible
  BREAKING    tools["search_catalog"]: tool removed: clients that call it get an error
  compatible  tools["get_author"].description: description changed
--- testdata/release-0.9/tools.json`)
}

// failures is a mcptest.TestingT that keeps the failures it is given.
type failures struct{ msgs []string }

func (f *failures) Errorf(format string, args ...any) {
	f.msgs = append(f.msgs, fmt.Sprintf(format, args...))
}
func (f *failures) FailNow()       {}
func (f *failures) String() string { return strings.Join(f.msgs, "\n") }
