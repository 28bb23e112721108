package main

import (
	"context"
	"errors"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// The cause of a failed first connection comes out of servercheck.Run's
// error as the error itself (errors.As reaches it), not as text.
func TestConnectCause(t *testing.T) {
	cause := &exec.Error{Name: "no-such-server", Err: exec.ErrNotFound}
	err := servercheck.Run(t.Context(), func(context.Context) (client.Transport, error) { return nil, cause }, &servercheck.Options{})
	require.ErrorIs(t, err, servercheck.ErrConnect)
	got := connectCause(err)
	var pe *exec.Error
	require.True(t, errors.As(got, &pe), "connectCause(%v) = %v, not the *exec.Error", err, got)
	assert.Same(t, cause, pe)
	assert.NotContains(t, got.Error(), servercheck.ErrConnect.Error())
	assert.Contains(t, got.Error(), cause.Error())

	srv := &server{command: []string{"no-such-server"}}
	assert.Equal(t, "could not start no-such-server: "+got.Error(), srv.connectError(got).Error())

	other := errors.New("not a connection failure")
	assert.Same(t, other, connectCause(other))
}
