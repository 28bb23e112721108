package crash_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/internal/crash"
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
