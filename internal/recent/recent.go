// Package recent keeps the most recent entries of an append-only log. It is
// the store behind every transcript of the kit: a memtransport Pair's, and
// the one mcptest keeps around a transport that is not a Pair, so both keep
// and number their frames the same way.
package recent

import "sync"

const (
	firstChunk = 8
	chunkSize  = 256
)

// Log holds entries in the order they were added, numbering them from 1. It
// keeps the limit most recent ones and counts the older ones it let go.
// Adding takes a mutex and never copies what is held: entries live in chunks
// that start small, since most connections carry a handful of messages, and
// double up to chunkSize, so a long log never copies itself to grow. Its
// methods are safe for concurrent use.
type Log[E any] struct {
	mu      sync.Mutex
	limit   int // < 0 unlimited, 0 off
	n       int // entries added
	chunks  [][]E
	held    int // entries in chunks
	omitted int // entries let go
}

// New returns a log that keeps the limit most recent entries; limit == 0
// keeps none but counts them, and a negative limit keeps every entry.
func New[E any](limit int) Log[E] { return Log[E]{limit: limit} }

// Add appends e and returns its number.
func (l *Log[E]) Add(e E) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if l.limit == 0 {
		l.omitted++
		return l.n
	}
	last := len(l.chunks) - 1
	if last < 0 || len(l.chunks[last]) == cap(l.chunks[last]) {
		size := firstChunk
		if last >= 0 {
			size = min(2*cap(l.chunks[last]), chunkSize)
		}
		l.chunks = append(l.chunks, make([]E, 0, size))
		last++
	}
	l.chunks[last] = append(l.chunks[last], e)
	l.held++
	// Drop whole chunks that the limit no longer needs.
	for l.limit > 0 && l.held-len(l.chunks[0]) >= l.limit {
		l.held -= len(l.chunks[0])
		l.omitted += len(l.chunks[0])
		l.chunks[0] = nil
		l.chunks = l.chunks[1:]
	}
	return l.n
}

// Update calls f on the entry numbered n, if the log still holds it.
func (l *Log[E]) Update(n int, f func(*E)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The held entries are numbered from omitted+1 on, in order; look from
	// the end, where the entries that get updated are.
	i := n - l.omitted - 1 // index among the held entries
	if i < 0 || i >= l.held {
		return
	}
	end := l.held
	for c := len(l.chunks) - 1; c >= 0; c-- {
		start := end - len(l.chunks[c])
		if i >= start {
			f(&l.chunks[c][i-start])
			return
		}
		end = start
	}
}

// Snapshot returns a copy of the entries kept, oldest first, and how many
// came before them: entries[i] is the one numbered omitted+i+1.
func (l *Log[E]) Snapshot() (entries []E, omitted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	entries = make([]E, 0, l.held)
	for _, chunk := range l.chunks {
		entries = append(entries, chunk...)
	}
	omitted = l.omitted
	// Whole chunks are let go only once the rest holds limit entries, so
	// up to a chunk more than the limit may be held.
	if l.limit > 0 && len(entries) > l.limit {
		omitted += len(entries) - l.limit
		entries = entries[len(entries)-l.limit:]
	}
	return entries, omitted
}
