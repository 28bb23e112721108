package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcptestkit/mcptestkit/internal/jsonrpc"
)

// serveInput runs the callback for a server's request for input: a legacy
// server-to-client request or a 2026-07-28 input request inside an
// input_required result. It returns the result's JSON. A request the client
// has no callback for fails with method-not-found, as the protocol asks for
// capabilities that were not declared.
func (c *Client) serveInput(ctx context.Context, method string, params json.RawMessage) ([]byte, error) {
	o := &c.opts
	switch method {
	case methodPing:
		return []byte("{}"), nil
	case methodCreateMessage:
		if o.CreateMessage == nil {
			return nil, &Error{Code: CodeMethodNotFound, Message: "client does not support sampling (no CreateMessage callback)"}
		}
		var req CreateMessageRequest
		if err := unmarshalParams(params, &req); err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: "invalid sampling/createMessage params: " + err.Error()}
		}
		if (len(req.Tools) > 0 || req.ToolChoice != nil) && !c.clientCaps.Sampling.Tools {
			return nil, &Error{Code: CodeInvalidParams, Message: "sampling with tools needs the sampling.tools capability, which this client did not declare"}
		}
		res, err := o.CreateMessage(ctx, &req)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("the CreateMessage callback returned no result")
		}
		return json.Marshal(res)
	case methodElicit:
		if o.Elicit == nil {
			return nil, &Error{Code: CodeMethodNotFound, Message: "client does not support elicitation (no Elicit callback)"}
		}
		var req ElicitRequest
		if err := unmarshalParams(params, &req); err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: "invalid elicitation/create params: " + err.Error()}
		}
		if req.Mode == "" {
			req.Mode = "form"
		}
		caps := c.clientCaps.Elicitation
		switch req.Mode {
		case "form":
			if !caps.Form && caps.URL {
				return nil, &Error{Code: CodeInvalidParams, Message: "client does not support form elicitation"}
			}
		case "url":
			if !caps.URL {
				return nil, &Error{Code: CodeInvalidParams, Message: "client does not support URL elicitation (declare Capabilities.Elicitation.URL)"}
			}
		default:
			return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("unknown elicitation mode %q", req.Mode)}
		}
		res, err := o.Elicit(ctx, &req)
		if err != nil {
			return nil, err
		}
		if res == nil {
			return nil, errors.New("the Elicit callback returned no result")
		}
		switch res.Action {
		case ElicitAccept, ElicitDecline, ElicitCancel:
		default:
			return nil, fmt.Errorf("the Elicit callback returned action %q (want accept, decline or cancel)", res.Action)
		}
		return json.Marshal(res)
	case methodListRoots:
		if o.ListRoots == nil {
			return nil, &Error{Code: CodeMethodNotFound, Message: "client does not support roots (no ListRoots callback)"}
		}
		roots, err := o.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []*Root{}
		}
		return json.Marshal(struct {
			Roots []*Root `json:"roots"`
		}{roots})
	}
	return nil, &Error{Code: CodeMethodNotFound, Message: fmt.Sprintf("method not found: %q", method)}
}

func unmarshalParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return nil
	}
	return json.Unmarshal(params, v)
}

// envelope holds the members every result may carry besides its own:
// resultType, and the multi round-trip members of an input_required result.
type envelope struct {
	ResultType    string                  `json:"resultType,omitempty"`
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	RequestState  *string                 `json:"requestState,omitempty"`
}

type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

func errResultType(t string) error {
	return fmt.Errorf("server sent resultType %q, which this client does not know", t)
}

// check validates a result's resultType for a method that does not take part
// in multi round-trip requests.
func (e *envelope) check(o op) error {
	if e.ResultType == "" || e.ResultType == resultComplete {
		return nil
	}
	if e.ResultType == resultInputRequired {
		return fmt.Errorf("%s: server sent an input_required result, which only tools/call, prompts/get and resources/read may", o)
	}
	return fmt.Errorf("%s: %w", o, errResultType(e.ResultType))
}

// InputRequiredError is returned when a 2026-07-28 multi round-trip request
// could not be completed: the rounds ran out, or a callback failed.
type InputRequiredError struct {
	// Method is the request ("tools/call").
	Method string
	// Name is the tool, prompt or resource URI the request was about.
	Name string
	// Rounds is the number of requests sent.
	Rounds int
	// Reason says what went wrong.
	Reason string
	// Err is the callback's error, if one failed.
	Err error
}

// Error implements the error interface.
func (e *InputRequiredError) Error() string {
	rounds := "rounds"
	if e.Rounds == 1 {
		rounds = "round"
	}
	s := fmt.Sprintf("%s: input required: %s (after %d %s)", op{e.Method, e.Name}, e.Reason, e.Rounds, rounds)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the callback's error.
func (e *InputRequiredError) Unwrap() error { return e.Err }

// mrtr runs a request that may answer input_required: it fulfils the input
// requests through the callbacks and retries with a new id, the same params,
// the input responses and the request state, until the result is complete
// or the rounds run out. decode decodes a result into the caller's value and
// returns its envelope.
func (c *Client) mrtr(ctx context.Context, o op, obj []byte, co *callOptions, decode func(json.RawMessage) (*envelope, error)) error {
	ctx, cancel := c.withTimeout(ctx, co) // bounds every round, callbacks included
	defer cancel()
	token, sink, forget := c.trackProgress(co)
	defer forget()
	var extra []member
	shedding := 0
	backoff := 50 * time.Millisecond
	relisted := false
	for round := 1; ; round++ {
		params, err := c.buildParams(obj, co, token, extra...)
		if err != nil {
			return fmt.Errorf("%s: %w", o, err)
		}
		raw, err := c.roundTrip(ctx, o, params, sink)
		if err != nil && !relisted && o.method == methodCallTool && c.IsModern() && isHeaderMismatch(err) {
			relisted = true
			raw, err = c.relistAndRetry(ctx, o, params, sink, err)
		}
		if err != nil {
			return err
		}
		env, err := decode(raw)
		if err != nil {
			return fmt.Errorf("%s: decoding result: %w", o, err)
		}
		switch env.ResultType {
		case "", resultComplete:
			return nil
		case resultTask:
			if co.acceptTask {
				return nil
			}
			return fmt.Errorf("%s: server sent resultType \"task\" (a task) for a request that did not declare the %s extension", o, ExtensionTasks)
		case resultInputRequired:
		default:
			return fmt.Errorf("%s: %w", o, errResultType(env.ResultType))
		}
		if !c.IsModern() {
			return fmt.Errorf("%s: server sent an input_required result on a %s connection", o, c.version)
		}
		if env.InputRequests == nil && env.RequestState == nil {
			return fmt.Errorf("%s: input_required result with neither inputRequests nor requestState", o)
		}
		if round >= c.opts.MaxInputRounds {
			return &InputRequiredError{Method: o.method, Name: o.name, Rounds: round, Reason: "the server still asks for input at the limit of Options.MaxInputRounds"}
		}
		extra = extra[:0]
		if len(env.InputRequests) > 0 {
			shedding, backoff = 0, 50*time.Millisecond
			responses, err := c.fulfil(ctx, env.InputRequests)
			if err != nil {
				return &InputRequiredError{Method: o.method, Name: o.name, Rounds: round, Reason: "answering the server's input requests failed", Err: err}
			}
			extra = append(extra, member{"inputResponses", responses})
		} else {
			// requestState alone: the server is not ready; retry after a pause.
			shedding++
			if shedding > maxShedding {
				return &InputRequiredError{Method: o.method, Name: o.name, Rounds: round, Reason: "the server kept asking to retry later"}
			}
			t := time.NewTimer(backoff)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("%s: %w", o, context.Cause(ctx))
			case <-t.C:
			}
			backoff = min(backoff*2, 250*time.Millisecond)
		}
		if env.RequestState != nil {
			state, _ := json.Marshal(*env.RequestState) // a string: cannot fail
			extra = append(extra, member{"requestState", state})
		}
	}
}

// isHeaderMismatch reports whether err is the server's -32020: an HTTP header
// of the request disagrees with its body.
func isHeaderMismatch(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == CodeHeaderMismatch
}

// relistAndRetry answers a 2026-07-28 tools/call refused with HeaderMismatch
// (-32020). Over HTTP the Mcp-Param-* headers of a call come from the tool's
// x-mcp-header annotations, which the transport learns from tools/list: a
// tool called before it was listed, or changed since, gets the wrong
// headers. As the protocol advises, the client lists the tools again (every
// page, for the transport to see them all) and retries the call once, with a
// new id (and the same progress token, whose sink is progress). mismatch is
// the first refusal.
func (c *Client) relistAndRetry(ctx context.Context, o op, params []byte, progress *progressSink, mismatch error) (json.RawMessage, error) {
	for _, err := range c.Tools(ctx) {
		if err != nil {
			return nil, fmt.Errorf("%w; listing the tools again to learn their headers failed: %w", mismatch, err)
		}
	}
	raw, err := c.roundTrip(ctx, o, params, progress)
	if isHeaderMismatch(err) {
		return nil, fmt.Errorf("%w (refused again after listing the tools)", err)
	}
	return raw, err
}

// maxShedding bounds consecutive retries that only carry requestState.
const maxShedding = 3

// fulfil answers every input request and returns the inputResponses object.
func (c *Client) fulfil(ctx context.Context, reqs map[string]inputRequest) ([]byte, error) {
	b := []byte{'{'}
	for key, r := range reqs {
		switch r.Method {
		case methodCreateMessage, methodElicit, methodListRoots:
		default:
			return nil, fmt.Errorf("input request %q: method %q may not be used as an input request", key, r.Method)
		}
		res, err := c.answerInput(ctx, r.Method, r.Params)
		if err != nil {
			return nil, fmt.Errorf("input request %q (%s): %w", key, r.Method, err)
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, key)
		b = append(b, ':')
		b = append(b, res...)
	}
	return append(b, '}'), nil
}
