package sdktest

import (
	"fmt"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/logcapture"
	"github.com/mcptestkit/mcptestkit/mcpgo/internal/adaptertest"
)

// The guard's tests state JSON-RPC errors as the test kit's client sees
// them, with no SDK type: mcp-go has none that crosses the wire.

// Answer is what the client should get for a request; see
// [adaptertest.Answer]. Its Err is made with [WireErr].
type Answer = adaptertest.Answer[client.Error]

// Crash is one crash row of the guard contract; see [adaptertest.Crash].
type Crash = adaptertest.Crash[client.Error]

// Failure is one expected-failure row of the guard contract (or a
// success); see [adaptertest.Failure].
type Failure = adaptertest.Failure[client.Error]

// WireErr is a JSON-RPC error as it crosses the wire, without data: what
// [adaptertest.WireError] returns for it.
func WireErr(code int64, message string) *client.Error {
	return &client.Error{Code: code, Message: message}
}

// AssertCrash is [adaptertest.AssertCrash] for mcp-go's guard.
func AssertCrash(t testing.TB, cl *client.Client, transcript fmt.Stringer, logs *logcapture.Recorder, c Crash) {
	t.Helper()
	adaptertest.AssertCrash(t, cl, transcript, logs, c, adaptertest.WireError)
}

// AssertFailure is [adaptertest.AssertFailure] for mcp-go's guard.
func AssertFailure(t testing.TB, c *client.Client, logs *logcapture.Recorder, f Failure) {
	t.Helper()
	adaptertest.AssertFailure(t, c, logs, f, adaptertest.WireError)
}
