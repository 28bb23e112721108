package client

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// Keys of the per-request metadata of 2026-07-28.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// CallOption adjusts one request: see [WithProgress], [WithMeta] and
// [WithTimeout].
type CallOption func(*callOptions)

type callOptions struct {
	progress func(Progress)
	meta     Meta
	timeout  time.Duration

	// Tasks: see WithTask and WithTaskUpdates.
	asTask      bool
	taskTTL     time.Duration
	taskUpdates func(*Task)
	// Set by the client itself: tasksExt declares the 2026-07-28 tasks
	// extension on the request; acceptTask lets tools/call answer with a
	// task; token and sink are a progress token tracked by the caller.
	tasksExt   bool
	acceptTask bool
	token      int64
	sink       *progressSink
}

// WithProgress asks the server for progress notifications on this request
// (it sends a progressToken) and calls f for each one, in order, on the
// client's reader goroutine, before the call returns. Progress stops at
// completion: f never runs for a notification the client reads after the
// response, nor once the call has returned, even if the server sends more.
// f must not block or call the client.
func WithProgress(f func(Progress)) CallOption {
	return func(o *callOptions) { o.progress = f }
}

// WithMeta adds entries to the request's "_meta". The client's own keys (the
// progress token and the 2026-07-28 protocol metadata) take precedence.
func WithMeta(meta Meta) CallOption {
	return func(o *callOptions) { o.meta = meta }
}

// WithTimeout bounds this request, overriding [Options].Timeout; zero lifts
// the bound (the context's deadline still applies). Options.Timeout describes
// the error of a request that runs out of time.
func WithTimeout(d time.Duration) CallOption {
	return func(o *callOptions) { o.timeout = max(d, 0) }
}

func collect(opts []CallOption) callOptions {
	var o callOptions
	o.timeout = -1 // "not set": the client default applies
	for _, f := range opts {
		f(&o)
	}
	return o
}

// member is one extra member spliced into a params object.
type member struct {
	key   string
	value []byte // valid compact JSON
}

// buildParams assembles a request's params: the method's own members (obj, an
// object from encoding/json, or nil), any extra members, and "_meta" with the
// progress token, the caller's entries and, at 2026-07-28, the protocol
// metadata. A request with no members gets no params at all on legacy
// connections and params with "_meta" on modern ones.
func (c *Client) buildParams(obj []byte, co *callOptions, progressToken int64, extra ...member) ([]byte, error) {
	var userMeta []byte
	if len(co.meta) > 0 {
		m, err := json.Marshal(co.meta)
		if err != nil {
			return nil, fmt.Errorf("encoding _meta: %w", err)
		}
		userMeta = m[1 : len(m)-1] // the members, without braces
	}
	static := c.meta
	if co.tasksExt && c.taskMeta != nil {
		static = c.taskMeta
	}
	hasMeta := len(userMeta) > 0 || progressToken != 0 || static != nil
	hasObj := len(obj) > 2
	if !hasObj && len(extra) == 0 && !hasMeta {
		return nil, nil
	}
	n := len(obj) + len(userMeta) + len(static) + 48
	for _, m := range extra {
		n += len(m.key) + len(m.value) + 4
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	if hasObj {
		b = append(b, obj[1:len(obj)-1]...)
	}
	for _, m := range extra {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.value...)
	}
	if hasMeta {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, `"_meta":{`...)
		start := len(b)
		comma := func() {
			if len(b) > start {
				b = append(b, ',')
			}
		}
		if len(userMeta) > 0 {
			b = append(b, userMeta...)
		}
		if static != nil {
			comma()
			b = append(b, static...)
			if lvl := c.logLevel.Load(); lvl != nil {
				b = append(b, `,"`+metaLogLevel+`":`...)
				b = jsonrpc.AppendString(b, string(*lvl))
			}
		}
		if progressToken != 0 {
			comma()
			b = append(b, `"progressToken":`...)
			b = strconv.AppendInt(b, progressToken, 10)
		}
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// staticMeta returns the members of the 2026-07-28 per-request metadata for
// version: protocol version, client capabilities and client info.
func staticMeta(version string, caps, info []byte) []byte {
	b := make([]byte, 0, 128+len(caps)+len(info))
	b = append(b, `"`+metaProtocolVersion+`":`...)
	b = jsonrpc.AppendString(b, version)
	b = append(b, `,"`+metaClientCapabilities+`":`...)
	b = append(b, caps...)
	b = append(b, `,"`+metaClientInfo+`":`...)
	b = append(b, info...)
	return b
}

// objectJSON marshals v and checks that it is a JSON object (or null, which
// is returned as nil), naming what for in the error.
func objectJSON(what string, v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	if raw, ok := v.(json.RawMessage); ok && len(raw) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding %s: %w", what, err)
	}
	switch firstByte(b) {
	case '{':
		return b, nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("%s must encode as a JSON object, got %.40s", what, b)
}

// marshalCapabilities encodes caps exactly as json.Marshal does: the empty
// set, which most clients declare, without reflection.
func marshalCapabilities(caps Capabilities) ([]byte, error) {
	if len(caps.Experimental) == 0 && caps.Roots == nil && caps.Sampling == nil && caps.Elicitation == nil &&
		len(caps.Tasks) == 0 && len(caps.Extensions) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(caps)
}

// marshalImplementation encodes impl exactly as json.Marshal does: a plain
// name and version (no title, description, website or icons, nothing that
// json.Marshal escapes for HTML) without reflection.
func marshalImplementation(impl *Implementation) ([]byte, error) {
	if impl.Title != "" || impl.Description != "" || impl.WebsiteURL != "" || len(impl.Icons) > 0 ||
		strings.ContainsAny(impl.Name+impl.Version, "<>&") {
		return json.Marshal(impl)
	}
	b := make([]byte, 0, 24+len(impl.Name)+len(impl.Version))
	b = jsonrpc.AppendString(append(b, `{"name":`...), impl.Name)
	b = jsonrpc.AppendString(append(b, `,"version":`...), impl.Version)
	return append(b, '}'), nil
}
