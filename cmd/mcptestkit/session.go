package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest"
)

// session is what list --format json prints and what record writes: what
// the server declares and lists, and the outcome of each scripted step. A
// recorded session is a regression test: replay runs its steps again and
// compares, after mcptest.Normalize removed what changes between runs.
type session struct {
	// ProtocolVersion is the version the session was recorded at; replay
	// speaks it again, so that both runs see the same protocol.
	ProtocolVersion string `json:"protocolVersion"`
	// Server is the server's name: its version is left out, so that a
	// release that changes nothing else replays clean.
	Server       string          `json:"server"`
	Capabilities json.RawMessage `json:"capabilities"`
	Instructions string          `json:"instructions,omitempty"`

	Tools             []*client.Tool             `json:"tools,omitempty"`
	Resources         []*client.Resource         `json:"resources,omitempty"`
	ResourceTemplates []*client.ResourceTemplate `json:"resourceTemplates,omitempty"`
	Prompts           []*client.Prompt           `json:"prompts,omitempty"`

	Steps []*step `json:"steps,omitempty"`
}

// step is one scripted request and what came back. Exactly one of Tool,
// Resource and Prompt is set.
type step struct {
	Tool      string          `json:"tool,omitempty"`
	Resource  string          `json:"resource,omitempty"`
	Prompt    string          `json:"prompt,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`

	// The outcome: the result, or the JSON-RPC error.
	Result json.RawMessage `json:"result,omitempty"`
	Error  *stepError      `json:"error,omitempty"`
}

// stepError is a JSON-RPC error as the server sent it.
type stepError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (s *step) String() string {
	switch {
	case s.Tool != "":
		return fmt.Sprintf("tool %q", s.Tool)
	case s.Resource != "":
		return fmt.Sprintf("resource %q", s.Resource)
	}
	return fmt.Sprintf("prompt %q", s.Prompt)
}

// readScript reads the steps to record: a JSON array of objects with "tool",
// "resource" or "prompt", and "arguments" for tools and prompts.
func readScript(data []byte) ([]*step, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil || raw == nil {
		if err == nil {
			err = errors.New("it is null")
		}
		return nil, fmt.Errorf("not a JSON array of steps such as [{\"tool\": \"get_author\", \"arguments\": {\"title\": \"Dune\"}}]: %v", err)
	}
	steps, err := decodeSteps(raw, true)
	for _, s := range steps {
		s.Result, s.Error = nil, nil
	}
	return steps, err
}

// decodeSteps decodes and validates each step, naming the one that is
// wrong; a script (strict) has no outcomes and no other fields.
func decodeSteps(raw []json.RawMessage, strict bool) ([]*step, error) {
	steps := make([]*step, len(raw))
	for i, r := range raw {
		dec := json.NewDecoder(bytes.NewReader(r))
		if strict {
			dec.DisallowUnknownFields()
		}
		var s *step
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("step %d: %s is not a step such as {\"tool\": \"get_author\", \"arguments\": {\"title\": \"Dune\"}}: %v", i+1, cut(string(r), 80), err)
		}
		if s == nil {
			return nil, fmt.Errorf("step %d is null: give an object with \"tool\", \"resource\" or \"prompt\"", i+1)
		}
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("step %d: %v", i+1, err)
		}
		steps[i] = s
	}
	return steps, nil
}

func (s *step) validate() error {
	n := 0
	for _, v := range []string{s.Tool, s.Resource, s.Prompt} {
		if v != "" {
			n++
		}
	}
	if n != 1 {
		return errors.New(`give exactly one of "tool", "resource" and "prompt"`)
	}
	if len(s.Arguments) > 0 {
		if s.Resource != "" {
			return errors.New(`a resource step takes no "arguments"`)
		}
		var obj map[string]any
		if err := json.Unmarshal(s.Arguments, &obj); err != nil || obj == nil {
			return fmt.Errorf(`"arguments" must be a JSON object, not %s`, cut(string(s.Arguments), 80))
		}
		if s.Prompt != "" {
			var strs map[string]string
			if err := json.Unmarshal(s.Arguments, &strs); err != nil {
				return fmt.Errorf(`a prompt's "arguments" are strings: %v`, err)
			}
		}
	}
	return nil
}

// capture reads what the server lists: every page of each list whose
// capability it declares.
func capture(ctx context.Context, c *client.Client) (*session, error) {
	s := &session{
		ProtocolVersion: c.ProtocolVersion(),
		Server:          c.ServerInfo().Name,
		Instructions:    c.Instructions(),
	}
	caps := c.ServerCapabilities()
	s.Capabilities = caps.Raw
	var err error
	if caps.Tools != nil {
		if s.Tools, err = collect(c.Tools(ctx)); err != nil {
			return nil, err
		}
	}
	if caps.Resources != nil {
		if s.Resources, err = collect(c.Resources(ctx)); err != nil {
			return nil, err
		}
		if s.ResourceTemplates, err = collect(c.ResourceTemplates(ctx)); err != nil {
			return nil, err
		}
	}
	if caps.Prompts != nil {
		if s.Prompts, err = collect(c.Prompts(ctx)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func collect[T any](seq func(func(T, error) bool)) ([]T, error) {
	var out []T
	for v, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// play runs one step and stores its outcome. It returns an error only when
// there is no outcome: the connection broke, the request timed out.
func play(ctx context.Context, c *client.Client, s *step) error {
	var res any
	var err error
	switch {
	case s.Tool != "":
		var args any = map[string]any{}
		if len(s.Arguments) > 0 {
			args = s.Arguments
		}
		res, err = c.CallTool(ctx, s.Tool, args)
	case s.Resource != "":
		res, err = c.ReadResource(ctx, s.Resource)
	default:
		var args map[string]string
		if len(s.Arguments) > 0 {
			if uerr := json.Unmarshal(s.Arguments, &args); uerr != nil {
				return fmt.Errorf("%s: prompt arguments are strings: %v", s, uerr)
			}
		}
		res, err = c.GetPrompt(ctx, s.Prompt, args)
	}
	var rpc *client.Error
	switch {
	case errors.As(err, &rpc):
		s.Result, s.Error = nil, &stepError{Code: rpc.Code, Message: rpc.Message, Data: rpc.Data}
		return nil
	case err != nil:
		return fmt.Errorf("%s: %w", s, err)
	}
	// Normalised on its own, so that the result-level stamps a golden file
	// leaves out (cache hints) go here too.
	b, err := mcptest.Normalize(res)
	if err != nil {
		return fmt.Errorf("%s: %v", s, err)
	}
	s.Result, s.Error = b, nil
	return nil
}

// errSession is a session that could not be completed.
var errSession = errors.New("the session broke off")

// runSession connects, captures the lists and plays the steps.
func runSession(ctx context.Context, srv *server, steps []*step) (*session, error) {
	c, err := srv.connect(ctx)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s, err := capture(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSession, err)
	}
	for _, st := range steps {
		if err := play(ctx, c, st); err != nil {
			return nil, fmt.Errorf("%w: %v", errSession, err)
		}
	}
	s.Steps = steps
	return s, nil
}
