package cassette

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Caller sends one request to a live server and returns its result, or its
// JSON-RPC error as a JSON object (code, message, data); err when no
// answer came at all.
type Caller func(ctx context.Context, method string, params json.RawMessage) (result, rpcError json.RawMessage, err error)

// Replayed is one recorded request sent again: the recorded answer and the
// live one, each as {"result": ...} or {"error": ...} ({"failed": ...} for
// a live request that got no answer), and both normalised for comparison.
type Replayed struct {
	Exchange       *Exchange
	Recorded, Live map[string]json.RawMessage
	Want, Got      []byte // normalised
}

// Differs reports whether the live answer differs from the recorded one.
func (r *Replayed) Differs() bool { return !bytes.Equal(r.Want, r.Got) }

// Replay sends the recorded requests to call in recorded order, and
// returns what each got beside what was recorded, normalised by normalize
// (which sees the answers as generic JSON, the lists of a list result in
// key order: the protocol gives their order no meaning). Left out: the
// handshake, the requests with no recorded answer, and the rounds of a
// multi round-trip request (a retry, or one answered input_required),
// which the live client runs itself.
func (p *Player) Replay(ctx context.Context, call Caller, normalize func(v any) ([]byte, error)) ([]Replayed, error) {
	var out []Replayed
	for _, x := range p.exchanges {
		switch {
		case x.Method == "initialize", x.Method == "server/discover",
			x.Answer == nil, x.Retry, isInputRequired(x.Answer):
			continue
		}
		result, rpcErr, err := call(ctx, x.Method, x.Params)
		// Both sides redacted alike: the recorded one was, and the live
		// one must be, to compare equal and never show a secret in a diff.
		r := Replayed{Exchange: x, Recorded: p.redacted(recordedAnswer(x.Answer)), Live: p.redacted(liveAnswer(result, rpcErr, err))}
		var err1, err2 error
		r.Want, err1 = normalize(sortedLists(r.Recorded))
		r.Got, err2 = normalize(sortedLists(r.Live))
		if err := errors.Join(err1, err2); err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// redacted returns answer with each member redacted as the recording was.
func (p *Player) redacted(answer map[string]json.RawMessage) map[string]json.RawMessage {
	for k, v := range answer {
		answer[k] = p.red.Message(v)
	}
	return answer
}

// recordedAnswer is a recorded response as replay compares it.
func recordedAnswer(msg json.RawMessage) map[string]json.RawMessage {
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(msg, &m)
	if len(m.Error) > 0 {
		return map[string]json.RawMessage{"error": m.Error}
	}
	return map[string]json.RawMessage{"result": m.Result}
}

func liveAnswer(result, rpcErr json.RawMessage, err error) map[string]json.RawMessage {
	switch {
	case err != nil:
		b, _ := json.Marshal(map[string]string{"error": err.Error()})
		return map[string]json.RawMessage{"failed": b}
	case len(rpcErr) > 0:
		return map[string]json.RawMessage{"error": rpcErr}
	}
	return map[string]json.RawMessage{"result": result}
}

func isInputRequired(msg json.RawMessage) bool {
	var m struct {
		Result struct {
			ResultType string `json:"resultType"`
		} `json:"result"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Result.ResultType == "input_required"
}

// sortedLists returns answer as generic JSON with the lists of its result
// sorted by key.
func sortedLists(answer map[string]json.RawMessage) any {
	b, _ := json.Marshal(answer)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v map[string]any
	if dec.Decode(&v) != nil {
		return answer
	}
	SortLists(v["result"])
	return v
}

// listKeys are the lists of the list results and the key of their items.
var listKeys = map[string]string{"tools": "name", "prompts": "name", "resources": "uri", "resourceTemplates": "uriTemplate"}

// SortLists sorts, in place, the lists of the object v (generic JSON) whose
// order the protocol gives no meaning (tools, prompts, resources,
// resourceTemplates) by their items' keys, so that a server listing the
// same items in another order compares equal. It returns v.
func SortLists(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for list, key := range listKeys {
		items, ok := m[list].([]any)
		if !ok {
			continue
		}
		keyOf := func(item any) string {
			o, _ := item.(map[string]any)
			k, _ := o[key].(string)
			return k
		}
		slices.SortStableFunc(items, func(a, b any) int { return strings.Compare(keyOf(a), keyOf(b)) })
	}
	return v
}

// Rerecord writes the live answers of a replay over the recorded ones in
// the cassette at path, redacted as when recorded and under the recorded
// ids: the cassette's requests, and its placeholders, stay as they were.
func Rerecord(path string, replayed []Replayed) error {
	c, err := ReadFile(path)
	if err != nil {
		return err
	}
	red, err := NewRedactor(c.Header.Redact)
	if err != nil {
		return err
	}
	byAnswer := map[string][]byte{}
	for _, r := range replayed {
		x, got := r.Exchange, r.Live
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(x.Answer, &m)
		msg := map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": m.ID}
		for k, v := range got {
			if k == "failed" {
				return fmt.Errorf("%s: the server's answer is no JSON-RPC response (%s): not re-recorded", x.Shown, v)
			}
			msg[k] = v
		}
		b, _ := json.Marshal(msg)
		byAnswer[string(x.Answer)] = red.Message(b)
	}
	for i, f := range c.Frames {
		if f.Dir == ServerToClient {
			if b, ok := byAnswer[string(f.Msg)]; ok {
				c.Frames[i].Msg = b
				continue
			}
		}
		// The rest as it was, its placeholders written as this build
		// writes them (an older build's keyed ones become [redacted]).
		c.Frames[i].Msg = red.Message(f.Msg)
	}
	if c.Header.Server != nil {
		c.Header.Server = red.Info(c.Header.Server)
	}
	return c.WriteFile(path)
}
