package transport_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client/transport"
	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// A request's SSE stream is read to its end after the response: its
// connection is reused, where closing the stream at the response tore the
// connection down and the next request dialled anew (through a recording
// proxy, where the end lags, every request did). What still comes on the
// stream is delivered; a stream that never ends is closed soon after.
func TestCallStreamReadToItsEnd(t *testing.T) {
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no standalone stream", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		m, err := jsonrpc.Decode(body)
		if err != nil || m.IsNotification() {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
		w.(http.Flusher).Flush()
		time.Sleep(time.Millisecond) // the end lags the response, as through a proxy
		switch m.Method {
		case "late":
			fmt.Fprint(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after\"}}\n\n")
		case "endless":
			<-r.Context().Done()
		}
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	tr := transport.HTTP(srv.URL, transport.WithHTTPClient(hc))
	t.Cleanup(func() { tr.Close() })
	receive := func() string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // a hang guard
		defer cancel()
		got, err := tr.Receive(ctx)
		require.NoError(t, err)
		return string(got)
	}
	call := func(id int, method string) string {
		t.Helper()
		require.NoError(t, tr.Send(t.Context(), fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q}`, id, method)))
		return receive()
	}
	for i := range 20 {
		assert.Contains(t, call(i, "ping"), fmt.Sprintf(`"id":%d`, i))
		time.Sleep(20 * time.Millisecond) // the client's own work between calls: the stream has ended
	}
	// Closing each stream at its response (before) took a connection per
	// request, 20; reading to the end reuses one. The bound leaves room for
	// a loaded machine where a stream's end comes after the pause.
	assert.Less(t, conns.Load(), int64(10), "20 requests, one after another, should share their connections")

	call(100, "late")
	assert.Contains(t, receive(), `"after"`, "a message after the response is delivered")

	start := time.Now()
	call(101, "endless")
	assert.Contains(t, call(102, "ping"), `"id":102`)
	require.NoError(t, tr.Close())
	assert.Less(t, time.Since(start), 5*time.Second, "a stream that never ends holds nothing up")
}
