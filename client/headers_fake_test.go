package client

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What real servers do not do, scripted: a server that refuses the retry as
// well gets its second refusal back, after one listing and one retry (with a
// new id); a listing that fails is reported with the refusal; and on legacy
// connections, where -32020 means nothing, there is no retry.
func TestHeaderMismatchRetriedOnce(t *testing.T) {
	c, f := modernFake(t, nil)
	errc := make(chan error, 1)
	go func() {
		_, err := c.CallTool(t.Context(), "lookup", map[string]any{"region": "x"})
		errc <- err
	}()
	first := f.expect("tools/call")
	f.fail(first.ID, CodeHeaderMismatch, "missing Mcp-Param-Region", "")
	m := f.expect("tools/list")
	f.reply(m.ID, `{"tools":[{"name":"lookup","inputSchema":{"type":"object"}}],"nextCursor":"2"}`)
	m = f.expect("tools/list")
	assert.JSONEq(t, `"2"`, string(params(t, m)["cursor"]), "every page is listed")
	f.reply(m.ID, `{"tools":[]}`)
	retry := f.expect("tools/call")
	assert.NotEqual(t, first.ID.String(), retry.ID.String(), "the retry has a new id")
	assert.JSONEq(t, string(first.Params), string(retry.Params), "and the same params")
	f.fail(retry.ID, CodeHeaderMismatch, "still missing Mcp-Param-Region", "")
	err := <-errc
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeHeaderMismatch, e.Code)
	assert.Equal(t, "still missing Mcp-Param-Region", e.Message)
	assert.ErrorContains(t, err, "refused again after listing the tools")

	// The listing fails: both failures are reported.
	go func() {
		_, err := c.CallTool(t.Context(), "lookup", nil)
		errc <- err
	}()
	m = f.expect("tools/call")
	f.fail(m.ID, CodeHeaderMismatch, "mismatch", "")
	m = f.expect("tools/list")
	f.fail(m.ID, CodeInternalError, "list broke", "")
	err = <-errc
	require.ErrorAs(t, err, &e)
	assert.Equal(t, CodeHeaderMismatch, e.Code, "errors.As finds the refusal first")
	assert.ErrorContains(t, err, "error -32603", "and the listing's failure is kept")
	assert.ErrorContains(t, err, "listing the tools again to learn their headers failed")

	// Legacy: no retry.
	lc, lf := legacyFake(t, Version20251125, nil)
	go func() {
		_, err := lc.CallTool(t.Context(), "lookup", nil)
		errc <- err
	}()
	m = lf.expect("tools/call")
	lf.fail(m.ID, CodeHeaderMismatch, "something else on an old server", "")
	require.ErrorAs(t, <-errc, &e)
	assert.Equal(t, CodeHeaderMismatch, e.Code)
	// The next thing the legacy server sees is the next request, not a listing.
	go func() { errc <- lc.Ping(t.Context()) }()
	m = lf.expect("ping")
	lf.reply(m.ID, `{}`)
	require.NoError(t, <-errc)
}
