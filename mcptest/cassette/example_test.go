package cassette_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/faketb"
	"github.com/mcptestkit/mcptestkit/mcptest"
	"github.com/mcptestkit/mcptestkit/mcptest/cassette"
)

// runTest runs body as go test runs a test, with a stand-in for its
// *testing.T (an Example has none), and prints what the test reported.
func runTest(body func(t testing.TB)) {
	t := faketb.New(nil, "Example")
	done := make(chan struct{})
	go func() { // Fatal ends the goroutine it runs on, as in a test
		defer close(done)
		defer t.Finish()
		body(t)
	}()
	<-done
	report, _, _ := strings.Cut(t.Text(), "\nmcptest: transcript") // the transcript after a failure: its times vary
	fmt.Print(report)
}

// A client's test against a recorded server: testdata/notes.cassette
// recorded a client adding the same note twice.
func ExampleServer() {
	runTest(func(t testing.TB) {
		c := mcptest.Connect(t, cassette.Server(t, "testdata/notes.cassette", cassette.Once()))
		for range 2 {
			res, err := c.CallTool(t.Context(), "add_note", map[string]any{"text": "buy milk"})
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println(res.Text())
		}
	})
	// Output:
	// note 1 kept
	// note 2 kept
}

// A server's regression test: the recorded calls are sent to it, and an
// answer that differs fails the test with a diff. Here the "server" is a
// later recording whose second answer changed.
func ExampleReplay() {
	runTest(func(t testing.TB) {
		c := mcptest.Connect(t, cassette.Server(t, "testdata/notes-v2.cassette"))
		cassette.Replay(t, c, "testdata/notes.cassette")
	})
	// Output:
	// cassette testdata/notes.cassette: the answer to tools/call {"arguments":{"text":"buy milk"},"name":"add_note"} differs from the recording:
	// --- recorded
	// +++ now
	// @@ -2,7 +2,7 @@
	//    "result": {
	//      "content": [
	//        {
	// -        "text": "note 2 kept",
	// +        "text": "note 2 stored",
	//          "type": "text"
	//        }
	//      ]
}
