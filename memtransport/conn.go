package memtransport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// ErrTooLarge is matched by every [*SizeError], for errors.Is.
var ErrTooLarge = errors.New("memtransport: message too large")

// SizeError reports a message larger than the connection's maximum message
// size (see [WithMaxMessageSize]).
type SizeError struct {
	Size  int // bytes in the rejected message
	Limit int // the maximum message size
}

// Error implements error.
func (e *SizeError) Error() string {
	return fmt.Sprintf("memtransport: message of %d bytes exceeds the maximum message size of %d bytes", e.Size, e.Limit)
}

// Is makes errors.Is(err, ErrTooLarge) true for a SizeError.
func (e *SizeError) Is(target error) bool { return target == ErrTooLarge }

// Direction is the way a frame travels between the two ends of a [Pair].
type Direction uint8

// The two directions. By convention the first end [Pair] returns is the
// client and the second the server.
const (
	ClientToServer Direction = 1
	ServerToClient Direction = 2
)

// String returns "client→server" or "server→client".
func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "client→server"
	case ServerToClient:
		return "server→client"
	default:
		return fmt.Sprintf("Direction(%d)", uint8(d))
	}
}

// lane is one direction of the pipe.
type lane struct {
	ch chan []byte
	// turn is held (a one-slot semaphore, so waiting for it honours ctx)
	// while a frame is recorded and enqueued, so the transcript lists the
	// frames of one direction in the order they are received.
	turn chan struct{}
	n    int // frames offered in this direction; guarded by turn
}

// pipe is the state both ends share.
type pipe struct {
	cfg   config
	lanes [2]lane // [0] client→server, [1] server→client

	done      chan struct{}
	closeOnce sync.Once
	closeErr  error // set before done is closed: &closed
	closed    closedError

	tr transcript
}

func (p *pipe) lane(d Direction) *lane { return &p.lanes[d-1] }

func (p *pipe) close(reason string) {
	p.closeOnce.Do(func() {
		p.closed.reason = reason
		p.closeErr = &p.closed
		close(p.done)
	})
}

// closedError is the error of an ended connection: [io.ErrClosedPipe] (see
// the package doc for why that one) and why it ended. The pipe holds it, so
// closing allocates nothing.
type closedError struct{ reason string }

func (e *closedError) Error() string {
	return "memtransport: " + io.ErrClosedPipe.Error() + " (" + e.reason + ")"
}

func (e *closedError) Unwrap() error { return io.ErrClosedPipe }

// Conn is one end of an in-memory connection. Its methods are safe for
// concurrent use. A Conn satisfies the client package's Transport interface.
type Conn struct {
	p      *pipe
	out    Direction // the direction this end sends in
	closed atomic.Bool

	streamOnce sync.Once
	stream     *stream
}

// Pair returns the two ends of a new connection: the client end first, the
// server end second. The names only label the transcript; the ends behave
// the same.
func Pair(opts ...Option) (client, server *Conn) {
	cfg := newConfig(opts)
	p := &pipe{cfg: cfg, done: make(chan struct{}), tr: newTranscript(cfg.transcriptLimit)}
	for i := range p.lanes {
		p.lanes[i] = lane{ch: make(chan []byte, cfg.buffer), turn: make(chan struct{}, 1)}
	}
	return &Conn{p: p, out: ClientToServer}, &Conn{p: p, out: ServerToClient}
}

func (c *Conn) side() string {
	if c.out == ClientToServer {
		return "client"
	}
	return "server"
}

func (c *Conn) in() Direction { return 3 - c.out }

// Send delivers one whole message to the other end. Send takes ownership of
// msg: the caller must not modify it afterwards (the receiver and the
// transcript share it, so nothing is copied).
//
// Send rejects an empty message and one larger than the maximum message size
// (a [*SizeError]). It does not parse msg. It blocks only while the
// direction's buffer is full, and returns ctx's error, or an error matching
// [io.ErrClosedPipe] once the connection has ended.
func (c *Conn) Send(ctx context.Context, msg []byte) error {
	if len(msg) == 0 {
		return fmt.Errorf("memtransport: %s end: empty message (a frame must hold one JSON-RPC message)", c.side())
	}
	if limit := c.p.cfg.maxSize; limit > 0 && len(msg) > limit {
		return &SizeError{Size: len(msg), Limit: limit}
	}
	return c.send(ctx, msg, false, false)
}

// SendRaw delivers msg as one frame exactly as it is, without the checks Send
// makes: it may be empty, malformed or larger than the maximum message size.
// Tests use it to feed a peer bad input. The receiver gets it as one frame and
// the transcript marks it raw. Like Send, it takes ownership of msg.
func (c *Conn) SendRaw(ctx context.Context, msg []byte) error {
	return c.send(ctx, msg, true, false)
}

// errFull is why a send that may not wait did not happen.
var errFull = errors.New("memtransport: the buffer is full")

// send delivers msg. With now set it does not wait for the direction's turn
// or for room in the buffer, and fails with errFull instead.
//
// The common case (the turn free, no fault hook, room in the buffer) stays
// in this small frame; waiting and faults are in functions of their own, so
// that a goroutine started just to send (as a client's per-request sender
// is) does not have to grow its stack.
func (c *Conn) send(ctx context.Context, msg []byte, raw, now bool) error {
	p := c.p
	if c.closed.Load() {
		return p.closeErr
	}
	l := p.lane(c.out)
	// Take this direction's turn. A fast path first: a closed connection or
	// a done context must win even when the turn is free.
	select {
	case <-p.done:
		return p.closeErr
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case l.turn <- struct{}{}:
	default:
		if err := c.waitTurn(ctx, l, now); err != nil {
			return err
		}
	}
	err := c.enqueue(ctx, l, msg, raw, now)
	<-l.turn
	return err
}

// waitTurn waits for the direction's turn, unless now is set.
//
//go:noinline
func (c *Conn) waitTurn(ctx context.Context, l *lane, now bool) error {
	if now {
		return errFull
	}
	select {
	case l.turn <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-c.p.done:
		return c.p.closeErr
	}
}

// enqueue records msg and puts it in the buffer; the caller holds the turn.
func (c *Conn) enqueue(ctx context.Context, l *lane, msg []byte, raw, now bool) error {
	p := c.p
	l.n++
	note := ""
	if p.cfg.fault != nil {
		var err error
		var drop bool
		if msg, note, drop, err = c.fault(ctx, l, msg, raw); err != nil || drop {
			return err
		}
	}
	// Record before enqueueing: once the frame is in the channel the peer
	// may answer it, and the answer must not be listed first.
	seq := p.tr.record(c.out, msg, raw, note)
	select {
	case l.ch <- msg:
		return nil
	default:
		return c.waitRoom(ctx, l, msg, seq, now)
	}
}

// fault runs the fault hook on frame l.n and carries out its Action; drop
// reports a frame dropped (and recorded) on purpose.
//
//go:noinline
func (c *Conn) fault(ctx context.Context, l *lane, msg []byte, raw bool) (out []byte, note string, drop bool, err error) {
	act := c.p.cfg.fault(Frame{Dir: c.out, N: l.n, Data: msg, Raw: raw})
	if msg, note, err = c.apply(ctx, act, msg); err != nil {
		return nil, "", false, err
	}
	if act.Drop {
		c.p.tr.record(c.out, msg, raw, note)
		return nil, "", true, nil
	}
	return msg, note, false, nil
}

// waitRoom waits for room in the buffer for the frame recorded as seq
// (unless now is set), and notes in the transcript a frame that was not
// delivered.
//
//go:noinline
func (c *Conn) waitRoom(ctx context.Context, l *lane, msg []byte, seq int, now bool) error {
	p := c.p
	if now {
		p.tr.annotate(seq, "not delivered: "+errFull.Error())
		return errFull
	}
	select {
	case l.ch <- msg:
		return nil
	case <-ctx.Done():
		p.tr.annotate(seq, "not delivered: "+ctx.Err().Error())
		return ctx.Err()
	case <-p.done:
		p.tr.annotate(seq, "not delivered: connection closed")
		return p.closeErr
	}
}

// apply carries out a fault hook's Action. It returns the bytes to deliver
// and a transcript note.
func (c *Conn) apply(ctx context.Context, act Action, msg []byte) ([]byte, string, error) {
	p := c.p
	var notes []string
	if act.Delay > 0 {
		t := time.NewTimer(act.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, "", ctx.Err()
		case <-p.done:
			t.Stop()
			return nil, "", p.closeErr
		}
		notes = append(notes, "delayed "+act.Delay.String())
	}
	if act.Hold != nil {
		select {
		case <-act.Hold:
		case <-ctx.Done():
			return nil, "", ctx.Err()
		case <-p.done:
			return nil, "", p.closeErr
		}
		notes = append(notes, "held")
	}
	switch {
	case act.Close:
		p.tr.record(c.out, msg, false, joinNotes(append(notes, "connection closed by fault")))
		p.close(fmt.Sprintf("closed by a fault hook on %s frame %d", c.out, p.lane(c.out).n))
		return nil, "", p.closeErr
	case act.Drop:
		notes = append(notes, "dropped")
	case act.Replace != nil:
		msg = act.Replace
		notes = append(notes, "replaced")
	}
	return msg, joinNotes(notes), nil
}

func joinNotes(notes []string) string {
	switch len(notes) {
	case 0:
		return ""
	case 1:
		return notes[0]
	}
	s := notes[0]
	for _, n := range notes[1:] {
		s += ", " + n
	}
	return s
}

// Receive returns the next message from the other end, blocking until one
// arrives, ctx is done, or the connection ends. The caller owns the returned
// slice but shares it with the transcript, so it should not modify it.
//
// When the other end closes, Receive first returns what it had already sent,
// then an error matching [io.ErrClosedPipe]. After this end's own Close,
// Receive returns that error at once.
func (c *Conn) Receive(ctx context.Context) ([]byte, error) {
	p := c.p
	if c.closed.Load() {
		return nil, p.closeErr
	}
	ch := p.lane(c.in()).ch
	select {
	case m := <-ch:
		return m, nil
	default:
	}
	select {
	case m := <-ch:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-p.done:
		if c.closed.Load() {
			return nil, p.closeErr
		}
		// The peer closed: hand over what it sent before closing.
		select {
		case m := <-ch:
			return m, nil
		default:
			return nil, p.closeErr
		}
	}
}

// Close ends the connection for both ends. The other end can still receive
// the messages this end sent before Close, then an error matching
// [io.ErrClosedPipe]. Close never blocks, holds nothing that outlives it,
// and is safe to call more than once.
func (c *Conn) Close() error {
	reason := "closed by the server end"
	if c.out == ClientToServer {
		reason = "closed by the client end"
	}
	c.p.close(reason)
	c.closed.Store(true)
	return nil
}

// Done returns a channel that is closed when the connection ends, by either
// end's Close or by a fault.
func (c *Conn) Done() <-chan struct{} { return c.p.done }

// Transcript returns a snapshot of every frame that has crossed the
// connection so far, in both directions. Both ends share one transcript.
func (c *Conn) Transcript() Transcript { return c.p.tr.snapshot() }
