package servercheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/monitor"
)

// conn is one connection a check uses: the client over the tap.
type conn struct {
	tap       *tap
	cl        *client.Client
	version   string     // asked for; "" era-neutral
	shutdowns *shutdowns // the suite's, to count how the process ended
	// abandoned: a request on the connection was given up (timed out or
	// cancelled), so the server may be busy with it when the connection
	// closes, which says nothing about how it shuts down.
	abandoned bool
	mon       *monitor.Monitor // the connection's protocol monitor
	monSeen   int              // its findings the fuzzer has reported
}

// open dials and initializes a connection at version ("" era-neutral). On
// a failed handshake it returns the conn too (without a client, closed), for
// its transcript.
func (s *suite) open(version string) (*conn, error) { return s.openWith(version, nil) }

// openWith is open with the client's options adjusted by adjust (nil: as
// given), on a copy: the suite's own options are left as they are.
func (s *suite) openWith(version string, adjust func(*client.Options)) (*conn, error) {
	tr, err := s.dial(s.ctx)
	if err != nil {
		return nil, fmt.Errorf("dialing: %w", err)
	}
	c := &conn{tap: newTap(tr, &s.wire), version: version, shutdowns: &s.shutdowns}
	opts := s.opts.Client
	opts.ProtocolVersion = version
	opts.Timeout = s.timeout
	if adjust != nil {
		adjust(&opts)
	}
	// A server program may take a while to start (npx, an interpreter, a
	// loaded machine): the handshake gets more time than a request.
	ctx, cancel := context.WithTimeout(s.ctx, 3*s.timeout)
	defer cancel()
	watched, mon := s.watch(c.tap) // above the tap: a check's raw frames are its own business
	c.mon = mon
	c.cl, err = client.Connect(ctx, watched, &opts)
	if err != nil {
		_ = c.tap.Close()
		return c, err
	}
	return c, nil
}

// alive reports whether the connection still serves. The tap sees the end
// first (the client learns it from the tap's Receive, a moment later), so
// it is asked too: a check that returns because the connection ended must
// find it dead, or the next input would be blamed for the break.
func (c *conn) alive() bool {
	if c.cl == nil || c.cl.Err() != nil {
		return false
	}
	select {
	case <-c.tap.closed:
		return false
	default:
		return true
	}
}

func (c *conn) close() {
	// Only a process still serving when the connection closes says how it
	// shuts down; one that died before has been reported by its check.
	serving := c.alive()
	if ct, ok := c.tap.inner.(*commandTransport); ok && c.abandoned && serving {
		// It may work on the abandoned request for a long while: its
		// shutdown is left out of the shutdown check, so there is nothing
		// to wait for.
		_ = ct.cmd.Process.Kill()
	}
	if c.cl != nil {
		_ = c.cl.Close()
	}
	_ = c.tap.Close()
	if ct, ok := c.tap.inner.(*commandTransport); ok && serving && c.shutdowns != nil {
		if c.abandoned {
			c.shutdowns.recordBusy()
		} else {
			c.shutdowns.record(ct.ended())
		}
	}
}

// shutdowns counts how the server processes of a stdio suite ended.
type shutdowns struct {
	mu            sync.Mutex
	closed, dirty int
	busy          int    // connections left out: a request on them was abandoned
	first         string // how the first process that did not exit cleanly ended
}

// recordBusy counts a connection closed while the server may still work on
// an abandoned request.
func (s *shutdowns) recordBusy() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.busy++
}

func (s *shutdowns) counts() (closed, dirty, busy int, first string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed, s.dirty, s.busy, s.first
}

// refusesInvalidJSON reports whether t is a transport of package
// client/transport, which will not send a frame that is not JSON.
func refusesInvalidJSON(t client.Transport) bool {
	switch t.(type) {
	case *commandTransport, *transport.Stdio, *transport.StreamableHTTP:
		return true
	}
	return false
}

// offeredVersions returns the protocol versions the server listed in its
// last answer to server/discover on c: the supportedVersions of a result, or
// the data.supported of a -32022 error. ok is false if no such answer came.
func (c *conn) offeredVersions() (versions []string, ok bool) {
	if c == nil {
		return nil, false
	}
	t := c.tap
	t.mu.Lock()
	defer t.mu.Unlock()
	var id json.RawMessage
	for _, f := range t.frames {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result *struct {
				SupportedVersions []string `json:"supportedVersions"`
			} `json:"result"`
			Error *struct {
				Code int64 `json:"code"`
				Data struct {
					Supported []string `json:"supported"`
				} `json:"data"`
			} `json:"error"`
		}
		if json.Unmarshal(f.data, &m) != nil {
			continue
		}
		switch {
		case f.out && m.Method == "server/discover":
			id = m.ID
		case f.out || id == nil || !bytes.Equal(m.ID, id):
		case m.Result != nil && m.Result.SupportedVersions != nil:
			versions, ok = m.Result.SupportedVersions, true
		case m.Error != nil && m.Error.Code == client.CodeUnsupportedProtocolVersion:
			versions, ok = m.Error.Data.Supported, true
		}
	}
	return versions, ok
}

// modern reports whether the connection speaks 2026-07-28.
func (c *conn) modern() bool { return c.cl != nil && c.cl.IsModern() }

// unstamped returns msg as one line without the stamps 2026-07-28 puts in
// every "_meta" (protocol version, client capabilities and info, server
// info): they repeat on every message and never explain a failure.
func unstamped(msg []byte) string {
	var m map[string]any
	if json.Unmarshal(msg, &m) != nil {
		return string(bytes.TrimSpace(msg))
	}
	changed := false
	for _, k := range []string{"params", "result"} {
		body, _ := m[k].(map[string]any)
		meta, _ := body["_meta"].(map[string]any)
		for mk := range meta {
			if strings.HasPrefix(mk, "io.modelcontextprotocol/") {
				delete(meta, mk)
				changed = true
			}
		}
		if body != nil && meta != nil && len(meta) == 0 {
			delete(body, "_meta")
		}
	}
	if !changed {
		return string(bytes.TrimSpace(msg))
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(m) != nil {
		return string(bytes.TrimSpace(msg))
	}
	return strings.TrimSpace(b.String())
}

// sendError is a raw frame the transport would not send.
type sendError struct{ err error }

func (e *sendError) Error() string { return "sending: " + e.err.Error() }
