package servercheck

import (
	"context"
	"errors"
	"os/exec"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/cmdcopy"
)

// Command returns a Dialer that starts a copy of cmd for each connection
// (its Path, Args, Env, Dir and the rest of its configuration; cmd itself
// is never started, and the context of exec.CommandContext does not carry
// over) and speaks the stdio transport to it:
//
//	servercheck.Command(exec.Command("python", "server.py"))
//
// The program is stopped when the connection closes: its stdin is closed,
// and a program still running after the grace period
// (transport.WithGracePeriod) is signalled. Once one has had to be
// signalled, the later ones get a grace period of [ignoredEOFGrace]:
// waiting again for a program known not to exit by itself would only make
// the checks slower (the shutdown check reports it).
func Command(cmd *exec.Cmd, opts ...transport.CommandOption) Dialer {
	ignoresEOF := new(atomic.Bool)
	return func(ctx context.Context) (client.Transport, error) {
		if cmd == nil {
			return nil, errors.New("servercheck: Command: cmd is nil")
		}
		o := opts
		if ignoresEOF.Load() {
			o = append(slices.Clip(opts), transport.WithGracePeriod(ignoredEOFGrace))
		}
		run := cmdcopy.Of(cmd)
		tr, err := transport.Command(run, o...)
		if err != nil {
			return nil, err
		}
		return &commandTransport{Stdio: tr, cmd: run, ignoresEOF: ignoresEOF}, nil
	}
}

// ignoredEOFGrace is the grace period of the processes a [Command] starts
// once one did not exit when its stdin closed.
const ignoredEOFGrace = 200 * time.Millisecond

// commandTransport keeps the command of a stdio connection, to tell after
// Close how its process ended (the shutdown check).
type commandTransport struct {
	*transport.Stdio
	cmd        *exec.Cmd
	ignoresEOF *atomic.Bool // shared by the Dialer's connections
}

// Close closes the transport, which reaps the process, and notes whether it
// had to be stopped with a signal.
func (t *commandTransport) Close() error {
	err := t.Stdio.Close()
	if ps := t.cmd.ProcessState; ps != nil && ps.ExitCode() == -1 {
		t.ignoresEOF.Store(true)
	}
	return err
}

// ended says how the process, reaped by Close, ended: "" for a clean exit
// (status 0), else its state ("signal: terminated", "exit status 1").
func (t *commandTransport) ended() string {
	ps := t.cmd.ProcessState
	if ps == nil || ps.Success() {
		return ""
	}
	return ps.String()
}
