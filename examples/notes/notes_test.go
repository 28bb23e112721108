package notes_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcptestkit/mcptestkit/examples/notes"
	"github.com/mcptestkit/mcptestkit/gosdk/gosdktest"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/surface"
)

// The tests run through surface.Run, which prints what they exercised once
// they are done. (surface.Require() would fail the binary on the untested
// delete_note; this suite keeps its gaps to show them, and checks below
// that the report names them.)
func TestMain(m *testing.M) {
	code := surface.Run(m)
	if code == 0 {
		code = reportNamesTheGaps()
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

func reportNamesTheGaps() int {
	r := surface.Snapshot()
	missing := r.Missing(surface.Tests)
	listing := r.Listing(surface.Tests)
	if !slices.Equal(missing, []string{"tool delete_note"}) || !strings.Contains(listing, "tool add_note: argument tag never given") {
		fmt.Fprintf(os.Stderr, "the surface report does not name the suite's gaps:\n%s", listing)
		return 1
	}
	_, details, _ := strings.Cut(listing, "\n") // the summary line, surface.Run printed
	fmt.Print(details)
	return 0
}

func TestAddNote(t *testing.T) {
	c := mcptest.Connect(t, gosdktest.Server(notes.New()))
	res, err := c.CallTool(t.Context(), "add_note", map[string]any{"text": "buy milk"})
	require.NoError(t, err)
	mcptest.Assert(t).Text(res, "note 1 kept")
}

func TestAddEmptyNote(t *testing.T) {
	c := mcptest.Connect(t, gosdktest.Server(notes.New()))
	res, err := c.CallTool(t.Context(), "add_note", map[string]any{"text": " "})
	require.NoError(t, err)
	mcptest.Assert(t).ToolError(res, "a note needs some text")
}
