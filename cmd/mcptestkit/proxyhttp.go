package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/cassette"
)

// proxyHTTP serves a streamable HTTP reverse proxy to target on listen
// until ctx ends, recording every JSON-RPC message that crosses it: the
// body of each POST, and each message of each response, a JSON body or an
// SSE stream's events, as they stream (a stream is flushed to the client as
// it comes). ready, if not nil, gets the proxy's URL once it listens. Then it
// writes the cassette to out.
func proxyHTTP(ctx context.Context, out string, redact *cassette.Redaction, listen, target string, ready func(string)) (string, error) {
	to, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	rec, err := newRecorder("http", redact)
	if err != nil {
		return "", err
	}
	p := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(to)
			r.Out.URL.Path = to.Path
			r.Out.URL.RawPath = to.RawPath
			r.Out.Host = to.Host
			r.Out.Header.Del("X-Forwarded-For") // invisible: the server sees what the client sent
			if r.Out.Body != nil && r.Out.Method == http.MethodPost {
				body, _ := io.ReadAll(r.Out.Body)
				r.Out.Body = io.NopCloser(bytes.NewReader(body))
				recordBody(rec, cassette.ClientToServer, body)
			}
		},
		ModifyResponse: func(resp *http.Response) error {
			ct := resp.Header.Get("Content-Type")
			switch {
			case strings.HasPrefix(ct, "text/event-stream"):
				resp.Body = &sseTee{ReadCloser: resp.Body, rec: rec}
			case strings.HasPrefix(ct, "application/json"):
				resp.Body = &bodyTee{ReadCloser: resp.Body, rec: rec}
			}
			return nil
		},
		FlushInterval: -1,
	}
	l, err := net.Listen("tcp", listen)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	if ready != nil {
		ready("http://" + l.Addr().String() + to.Path)
	}
	select {
	case <-ctx.Done():
	case err = <-done:
	}
	shut, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut) // streams still open are cut
	_ = srv.Close()
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return "", err
	}
	c := rec.finish()
	if err := c.WriteFile(out); err != nil {
		return "", err
	}
	return rec.red.Summary(), nil
}

// recordBody records a JSON body: one message, or a batch of them.
func recordBody(rec *recorder, dir string, body []byte) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				rec.add(dir, m)
			}
			return
		}
	}
	rec.add(dir, body)
}

// bodyTee records a JSON response body once it has been read whole.
type bodyTee struct {
	io.ReadCloser
	rec *recorder
	buf bytes.Buffer
}

func (b *bodyTee) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.buf.Write(p[:n])
	if err == io.EOF {
		recordBody(b.rec, cassette.ServerToClient, b.buf.Bytes())
		b.buf.Reset()
	}
	return n, err
}

// sseTee records each event of an SSE stream as it passes.
type sseTee struct {
	io.ReadCloser
	rec  *recorder
	line []byte
	data []byte
}

func (s *sseTee) Read(p []byte) (int, error) {
	n, err := s.ReadCloser.Read(p)
	for _, c := range p[:n] {
		if c != '\n' {
			s.line = append(s.line, c)
			continue
		}
		l := bytes.TrimSuffix(s.line, []byte("\r"))
		s.line = s.line[:0]
		switch {
		case len(l) == 0:
			if len(s.data) > 0 {
				s.rec.add(cassette.ServerToClient, bytes.TrimSpace(s.data))
				s.data = s.data[:0]
			}
		case bytes.HasPrefix(l, []byte("data:")):
			if len(s.data) > 0 {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, bytes.TrimPrefix(bytes.TrimPrefix(l, []byte("data:")), []byte(" "))...)
		}
	}
	return n, err
}
