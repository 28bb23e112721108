package oauth

import "time"

// SetClock replaces t's clock, for tests of token expiry.
func SetClock(t *Transport, now func() time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now = now
}
