package memtransport

import "time"

// Frame is one message on its way across, as a fault hook sees it.
type Frame struct {
	// Dir is the direction the frame travels.
	Dir Direction
	// N counts frames in Dir, from 1: N == 2 is the second frame that way.
	N int
	// Data is the message. The hook must not modify it; to change what
	// arrives, return an Action with Replace set.
	Data []byte
	// Raw reports whether the frame came from [Conn.SendRaw].
	Raw bool
}

// Action is a fault hook's decision about one [Frame]. The zero Action
// delivers the frame unchanged. When several fields are set they apply in
// this order: Delay, Hold, then Close, Drop or Replace.
type Action struct {
	// Delay waits this long before the frame goes on (the sender waits; its
	// context and Close still end the wait). For timing experiments, not for
	// synchronisation: to order events in a test, use Hold.
	Delay time.Duration
	// Hold, when non-nil, keeps the frame back until the channel is closed
	// (or yields a value), so a test can decide exactly when it arrives.
	Hold <-chan struct{}
	// Close ends the whole connection instead of delivering the frame, as if
	// the peer had crashed mid-message; the sender gets an error
	// matching [io.ErrClosedPipe].
	Close bool
	// Drop discards the frame: the sender sees success and the receiver never
	// sees it, as if it were lost in transit.
	Drop bool
	// Replace, when non-nil, is delivered instead of the frame's bytes (a
	// corrupt or rewritten message). The transcript records what arrived.
	Replace []byte
}
