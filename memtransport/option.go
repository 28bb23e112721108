package memtransport

import "fmt"

// DefaultMaxMessageSize is the largest message [Conn.Send] accepts unless
// [WithMaxMessageSize] says otherwise. It matches the go-sdk's stdio line
// limit, so a test meets the same ceiling a real transport would impose.
const DefaultMaxMessageSize = 16 << 20

// DefaultBufferSize is how many frames each direction holds before a sender
// waits for the receiver: enough for a burst of notifications, and small,
// because every connection of a suite allocates it (go-sdk's in-memory
// transport holds none).
const DefaultBufferSize = 16

// Option configures a [Pair]. A nil Option is ignored.
type Option func(*config)

type config struct {
	maxSize         int // <= 0: no limit
	buffer          int
	transcriptLimit int // < 0: unlimited; 0: off
	fault           func(Frame) Action
}

func newConfig(opts []Option) config {
	c := config{maxSize: DefaultMaxMessageSize, buffer: DefaultBufferSize, transcriptLimit: -1}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithMaxMessageSize sets the largest message, in bytes, that [Conn.Send]
// accepts; n <= 0 removes the limit. [Conn.SendRaw] ignores it so that a test
// can still deliver an oversized frame on purpose.
func WithMaxMessageSize(n int) Option { return func(c *config) { c.maxSize = n } }

// WithBufferSize sets how many frames each direction buffers before a sender
// blocks. Zero makes every send wait for the receiver (a rendezvous).
// A negative n panics, because it is a programming error.
func WithBufferSize(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("memtransport: WithBufferSize(%d): buffer size must not be negative", n))
	}
	return func(c *config) { c.buffer = n }
}

// WithTranscriptLimit keeps only the n most recent frames in the transcript
// (the rest are counted in [Transcript.Omitted]); n == 0 records nothing, and
// a negative n (the default) keeps every frame.
func WithTranscriptLimit(n int) Option { return func(c *config) { c.transcriptLimit = n } }

// WithFault installs a hook that sees every frame, in both directions, before
// it is delivered and decides its fate with an [Action]. The zero Action
// delivers the frame unchanged.
//
// The hook runs on the sender's goroutine while that direction is held, so
// frames in one direction reach it one at a time and in order, and a frame
// that is delayed or held also holds back the frames behind it, as on a real
// stream. The hook must not send on the same direction itself.
func WithFault(hook func(Frame) Action) Option { return func(c *config) { c.fault = hook } }
