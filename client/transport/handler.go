package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

// handlerURL is where Handler's requests go. The host is localhost so that
// servers with DNS-rebinding protection accept it.
const handlerURL = "http://localhost/mcp"

// handlerDrain bounds how long Close waits for handler calls to return.
const handlerDrain = 5 * time.Second

// Handler returns a transport that serves every HTTP request with h in the
// same process, with no socket: an MCP server's streamable HTTP handler
// (go-sdk's mcp.NewStreamableHTTPHandler, mcp-go's
// server.NewStreamableHTTPServer) is tested exactly as a client over the
// network would see it, streaming included. Requests go to
// http://localhost/mcp.
//
// Each request runs h in a goroutine, like net/http does; its context ends
// when the client closes the response or the transport closes. Close waits
// for those goroutines and returns an error naming any that do not return
// within 5 seconds. A handler panic becomes a 500 response (or a broken
// stream, when the headers were already sent) and is logged with its stack.
func Handler(h http.Handler, opts ...HTTPOption) *StreamableHTTP {
	t := HTTP(handlerURL, opts...)
	rt := &handlerTransport{h: h, logger: t.cfg.logger}
	client := *t.cfg.client // keep the caller's Timeout, Jar, CheckRedirect
	client.Transport = rt
	t.cfg.client = &client
	t.inproc = rt
	return t
}

// handlerTransport is an http.RoundTripper that calls a handler.
type handlerTransport struct {
	h      http.Handler
	logger *slog.Logger
	wg     sync.WaitGroup
}

// wait waits for running handlers, bounded by handlerDrain.
func (rt *handlerTransport) wait() error {
	done := make(chan struct{})
	go func() {
		rt.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(handlerDrain)
	defer t.Stop()
	select {
	case <-done:
		return nil
	case <-t.C:
		return fmt.Errorf("transport: an in-process handler call is still running %v after Close; it ignores its request's context", handlerDrain)
	}
}

// RoundTrip implements http.RoundTripper.
func (rt *handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	// As a request on a loopback socket carries it: a handler's DNS
	// rebinding protection (go-sdk's) keys on the local address.
	ctx := context.WithValue(req.Context(), http.LocalAddrContextKey, net.Addr(&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80}))
	ctx, cancel := context.WithCancel(ctx)
	sreq := req.Clone(ctx)
	sreq.RequestURI = req.URL.RequestURI()
	sreq.RemoteAddr = "127.0.0.1:1"
	if sreq.Body == nil {
		sreq.Body = http.NoBody
	}
	if sreq.Host == "" {
		sreq.Host = req.URL.Host
	}
	// As a server reading them off the wire sees them: without the
	// whitespace around each value (RFC 9110 5.5), under names in
	// canonical form (a name sent in another case is one header still).
	h := make(http.Header, len(sreq.Header))
	for k, vs := range sreq.Header {
		for _, v := range vs {
			h.Add(k, strings.Trim(v, " \t"))
		}
	}
	sreq.Header = h
	pr, pw := io.Pipe()
	w := &pipeResponseWriter{header: http.Header{}, pw: pw, ready: make(chan struct{}), req: req}

	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		defer cancel()          // like net/http: the request context ends with the handler
		defer sreq.Body.Close() // a RoundTripper closes the request body
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					w.finish(errors.New("handler aborted the response"))
					return
				}
				rt.logger.Error("transport: in-process handler panicked", "method", req.Method, "panic", v, "stack", string(debug.Stack()))
				if w.commitPanic(v) {
					return
				}
				w.finish(fmt.Errorf("handler panicked: %v", v))
				return
			}
			w.finish(nil)
		}()
		rt.h.ServeHTTP(w, sreq)
	}()

	select {
	case <-w.ready:
		w.resp.Body = &cancelOnClose{ReadCloser: pr, cancel: cancel}
		return w.resp, nil
	case <-req.Context().Done():
		cancel()
		pr.Close()
		return nil, req.Context().Err()
	}
}

// cancelOnClose ends the handler's request context when the client closes
// the response body, as a dropped connection would.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}

// pipeResponseWriter is the handler's side: headers are handed to RoundTrip
// on the first write, flush or WriteHeader with a final status, the body
// streams through a pipe.
type pipeResponseWriter struct {
	header http.Header
	pw     *io.PipeWriter
	req    *http.Request

	mu        sync.Mutex
	committed bool
	ready     chan struct{}
	resp      *http.Response
}

func (w *pipeResponseWriter) Header() http.Header { return w.header }

func (w *pipeResponseWriter) WriteHeader(status int) {
	if status >= 100 && status < 200 {
		return // informational responses are not passed on
	}
	w.commit(status, nil)
}

func (w *pipeResponseWriter) Write(p []byte) (int, error) {
	w.commit(http.StatusOK, p)
	return w.pw.Write(p)
}

// Flush sends the headers now; the body is unbuffered already.
func (w *pipeResponseWriter) Flush() { w.commit(http.StatusOK, nil) }

// FlushError is Flush for http.ResponseController.
func (w *pipeResponseWriter) FlushError() error {
	w.Flush()
	return nil
}

func (w *pipeResponseWriter) commit(status int, first []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.committed {
		return false
	}
	w.committed = true
	h := w.header.Clone()
	if h.Get("Content-Type") == "" && len(first) > 0 {
		h.Set("Content-Type", http.DetectContentType(first))
	}
	w.resp = &http.Response{
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		ContentLength: -1,
		Request:       w.req,
	}
	close(w.ready)
	return true
}

// commitPanic answers 500 for a handler that panicked before responding;
// it reports whether it could.
func (w *pipeResponseWriter) commitPanic(v any) bool {
	w.header = http.Header{"Content-Type": {"text/plain; charset=utf-8"}}
	if !w.commit(http.StatusInternalServerError, nil) {
		return false
	}
	// The client reads (or closes) the body once RoundTrip returns, so this
	// write does not block for long.
	fmt.Fprintf(w.pw, "handler panicked: %v", v)
	w.pw.Close()
	return true
}

// finish ends the response when the handler returns.
func (w *pipeResponseWriter) finish(err error) {
	w.commit(http.StatusOK, nil)
	if err != nil {
		w.pw.CloseWithError(err)
		return
	}
	w.pw.Close()
}
