package servercheck

import "testing"

// Issue 30.13: crash text is a stack trace's shape, not any name that ends
// like a source file: a host with a port is ordinary text.
func TestLeakTellsCrashTextFromOrdinaryText(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"goroutine 7 [running]:\nmain.handler()\n\t/app/main.go:42 +0x1d",
		"panic: runtime error: index out of range",
		"thread 'main' panicked at src/main.rs:12:5:\nindex out of bounds",
		"error at handler.go:42",
		"failed in /srv/app/server.py:40",
		`Traceback (most recent call last):\n  File "/app/server.py", line 12, in <module>`,
		"TypeError: x is undefined\n    at handle (/app/index.js:10:7)",
		"at render (https://cdn.example.com/app.js:12:5)",
		"caused by C:\\src\\lib.rs:9",
		"java.lang.NullPointerException\n\tat Shop.get(Shop.java:31)",
	} {
		if leak(s) == "" {
			t.Errorf("leak(%q) found nothing; want it called crash text", s)
		}
	}
	for _, s := range []string{
		"could not reach api.example.rs:443",
		"upstream https://shop.example.py:8443/orders timed out",
		"connect to db.internal.rs:5432 refused",
		"mail to ops@mail.example.rs:25 bounced",
		"Order 99 not found",
		"rate limited by api.vendor.io:443, retry later",
	} {
		if got := leak(s); got != "" {
			t.Errorf("leak(%q) = %q; want no crash text", s, got)
		}
	}
	if got := leak("no book titled main.go:1", "main.go:1"); got != "" {
		t.Errorf("text the client sent is not crash text, got %q", got)
	}
}
