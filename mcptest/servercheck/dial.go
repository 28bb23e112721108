package servercheck

import (
	"context"
	"net/http"
	"os/exec"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// Command returns a Dialer that starts the program name with args for each
// connection and speaks the stdio transport to it. The program is stopped
// when the connection closes.
func Command(name string, args []string, opts ...transport.CommandOption) Dialer {
	return func(ctx context.Context) (client.Transport, error) {
		cmd := exec.Command(name, args...)
		tr, err := transport.Command(cmd, opts...)
		if err != nil {
			return nil, err
		}
		return &commandTransport{Stdio: tr, cmd: cmd}, nil
	}
}

// commandTransport keeps the command of a stdio connection, to tell after
// Close how its process ended (the shutdown check).
type commandTransport struct {
	*transport.Stdio
	cmd *exec.Cmd
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

// URL returns a Dialer that connects to a streamable HTTP endpoint.
func URL(rawURL string, opts ...transport.HTTPOption) Dialer {
	return func(ctx context.Context) (client.Transport, error) {
		return transport.HTTP(rawURL, opts...), nil
	}
}

// Handler returns a Dialer that calls a streamable HTTP handler in the
// process, with no socket.
func Handler(h http.Handler, opts ...transport.HTTPOption) Dialer {
	return func(ctx context.Context) (client.Transport, error) {
		return transport.Handler(h, opts...), nil
	}
}
