package crash_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/crash"
)

func TestReporterRoundTrip(t *testing.T) {
	t.Parallel()
	assert.Nil(t, crash.ReporterFrom(t.Context()))

	var got []crash.Report
	ctx := crash.WithReporter(t.Context(), func(r crash.Report) { got = append(got, r) })
	// A derived context, as a handler would see it, still carries it.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	report := crash.ReporterFrom(ctx)
	require.NotNil(t, report)
	report(crash.Report{Method: "tools/call", Name: "boom", Value: "kaboom", Stack: []byte("stack")})
	assert.Equal(t, []crash.Report{{Method: "tools/call", Name: "boom", Value: "kaboom", Stack: []byte("stack")}}, got)
}

func TestWithNilReporterLeavesContextAlone(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	assert.Equal(t, ctx, crash.WithReporter(ctx, nil))
	assert.Nil(t, crash.ReporterFrom(crash.WithReporter(ctx, nil)))
}

func TestDeliverUsesTheReporter(t *testing.T) {
	t.Parallel()
	var got []crash.Report
	ctx := crash.WithReporter(t.Context(), func(r crash.Report) { got = append(got, r) })
	r := crash.Report{Method: "prompts/get", Name: "greet", Value: "kaboom", Stack: []byte("stack")}
	crash.Deliver(ctx, r)
	assert.Equal(t, []crash.Report{r}, got)
}

func TestReportString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		r    crash.Report
		want string
	}{
		{crash.Report{Method: "tools/call", Name: "divide", Value: "integer divide by zero"}, `panic in tool "divide": integer divide by zero`},
		{crash.Report{Method: "prompts/get", Name: "greet", Value: errors.New("boom")}, `panic in prompt "greet": boom`},
		{crash.Report{Method: "resources/read", Name: "file:///x", Value: 42}, `panic handling resources/read "file:///x": 42`},
		{crash.Report{Method: "completion/complete", Value: "kaboom"}, `panic handling completion/complete: kaboom`},
		// A tool call whose name could not be read is worded as any method.
		{crash.Report{Method: "tools/call", Value: "kaboom"}, `panic handling tools/call: kaboom`},
	} {
		assert.Equal(t, tc.want, tc.r.String())
	}
}

func TestSubject(t *testing.T) {
	t.Parallel()
	for params, want := range map[string]string{
		`{"name":"divide","arguments":{"uri":"x"}}`: "divide",
		`{"uri":"file:///x"}`:                       "file:///x",
		`{"ref":{"type":"ref/prompt"}}`:             "",
		`null`:                                      "",
		``:                                          "",
		`[1]`:                                       "",
	} {
		assert.Equal(t, want, crash.Subject([]byte(params)), params)
	}
}
