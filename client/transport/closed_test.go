package transport_test

import (
	"context"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// After Close, every call on either transport, and a Receive that Close
// wakes, fails with an error matching client.ErrClosed: the kit's one error
// for an ended connection, whether the code holds a client or a transport.
func TestClosedErrorsMatchClientErrClosed(t *testing.T) {
	transports := map[string]func(t *testing.T) conn{
		"stdio": func(t *testing.T) conn {
			if _, err := exec.LookPath("cat"); err != nil {
				t.Skip("no cat on this system")
			}
			tr, err := transport.Command(exec.Command("cat"), transport.WithGracePeriod(time.Second))
			require.NoError(t, err)
			return tr
		},
		"http": func(t *testing.T) conn {
			return transport.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, "never reached", http.StatusTeapot)
			}))
		},
	}
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			tr := open(t)
			woken := make(chan error, 1)
			go func() {
				_, err := tr.Receive(context.Background())
				woken <- err
			}()
			require.NoError(t, tr.Close())
			select {
			case err := <-woken:
				assertClosed(t, err, "a Receive under way at Close")
			case <-time.After(10 * time.Second):
				t.Fatal("Close did not wake a pending Receive")
			}
			_, err := tr.Receive(t.Context())
			assertClosed(t, err, "Receive after Close")
			assertClosed(t, tr.Send(t.Context(), []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)), "Send after Close")
		})
	}
}

func assertClosed(t *testing.T, err error, what string) {
	t.Helper()
	assert.ErrorIs(t, err, client.ErrClosed, what)
	assert.EqualError(t, err, "transport: closed", what)
}
