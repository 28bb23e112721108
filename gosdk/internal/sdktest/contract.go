package sdktest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/gosdk/internal/adaptertest"
	"github.com/mcptestkit/mcptestkit/logcapture"
)

// The guard's tests state JSON-RPC errors as go-sdk's jsonrpc.Error, so
// that they say what the server sent in the server's terms.

// Answer is what the client should get for a request; see
// [adaptertest.Answer].
type Answer = adaptertest.Answer[jsonrpc.Error]

// Crash is one crash row of the guard contract; see [adaptertest.Crash].
type Crash = adaptertest.Crash[jsonrpc.Error]

// Failure is one expected-failure row of the guard contract (or a
// success); see [adaptertest.Failure].
type Failure = adaptertest.Failure[jsonrpc.Error]

// AssertCrash is [adaptertest.AssertCrash] for go-sdk's guard.
func AssertCrash(t testing.TB, cl *client.Client, transcript fmt.Stringer, logs *logcapture.Recorder, c Crash) {
	t.Helper()
	adaptertest.AssertCrash(t, cl, transcript, logs, c, WireError)
}

// AssertFailure is [adaptertest.AssertFailure] for go-sdk's guard.
func AssertFailure(t testing.TB, c *client.Client, logs *logcapture.Recorder, f Failure) {
	t.Helper()
	adaptertest.AssertFailure(t, c, logs, f, WireError)
}

// WireError returns the JSON-RPC error err carries, from the mcptestkit
// client or go-sdk's, as the SDK's own error type, and fails the test at
// once if it carries none.
func WireError(t testing.TB, err error) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we
	}
	ce := adaptertest.WireError(t, err)
	return &jsonrpc.Error{Code: ce.Code, Message: ce.Message, Data: ce.Data}
}
