package servercheck

import (
	"strings"
	"testing"
)

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
func TestLeakByRuntime(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // a piece of what leak returns; "" for no leak
	}{
		// A crash's text, by runtime.
		{"panic: runtime error: index out of range [3] with length 2\n\ngoroutine 7 [running]:\nmain.add(...)", "panic: runtime error"},
		{"add failed\ngoroutine 7 [running]:\nmain.add(0x1)", "goroutine 7"},
		{"main.add(0x1)\n\t/home/dev/app/add.go:12 +0x1d", "/home/dev/app/add.go:12"},
		{`{"stack":"main.add(0x1)\n\t/home/dev/app/add.go:12 +0x1d"}`, "/home/dev/app/add.go:12"}, // as JSON data carries it
		{`open C:\src\app\main.go:12 failed`, `main.go:12`},
		{"Traceback (most recent call last):\n  File \"/app/server.py\", line 12, in add\nZeroDivisionError: division by zero", "Traceback"},
		{`  File "server.py", line 12, in add`, `File "server.py", line 12`},
		{"error in /srv/app/tools.py:88 while adding", "/srv/app/tools.py:88"},
		{"TypeError: Cannot read properties of undefined (reading 'x')\n    at add (/app/index.js:12:5)", "/app/index.js:12:5"},
		{"TypeError: boom at index.js:12:5", "index.js:12:5"},
		{"failed at ./dist/server.mjs:40", "./dist/server.mjs:40"},
		{"thread 'main' panicked at src/main.rs:12:5:\nattempt to divide by zero", "panicked at"},
		{"stack backtrace:\n   0: rust_begin_unwind", "stack backtrace:"},
		{"error at src/handlers/add.rs:12", "src/handlers/add.rs:12"},
		{"java.lang.NullPointerException\n\tat com.example.Tools.add(Tools.java:42)", "Tools.java:42"},
		{"/app/lib/tools.rb:12:in `add': divided by 0 (ZeroDivisionError)", "/app/lib/tools.rb:12"},

		// Ordinary text that only looks like a source position.
		{"could not reach api.example.rs:443: connection refused", ""},
		{"GET https://api.example.rs:443/v1/books failed: 503", ""},
		{"dial tcp pypi.example.py:443: i/o timeout", ""},
		{"proxy cdn.example.go:8080 is down", ""},
		{"redis://cache.internal.rs:6379/0 refused the connection", ""},
		{`{"error":"no route to api.example.rs:443"}`, ""},
	} {
		got := leak(tc.text)
		switch {
		case tc.want == "" && got != "":
			t.Errorf("leak(%q) = %q, want no crash text", tc.text, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("leak(%q) = %q, want crash text containing %q", tc.text, got, tc.want)
		}
	}
	// A path the client sent, echoed back, is not the server's.
	if got := leak("no such file: /data/in/a.go:1", `{"path":"/data/in/a.go:1"}`); got != "" {
		t.Errorf("leak of an echoed path = %q, want none", got)
	}
}
