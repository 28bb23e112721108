package servercheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

// schema is a tool's schema, decoded and compiled.
type schema struct {
	doc      any // numbers as json.Number: 1e400 is a valid schema number
	compiled *jsonschema.Schema
	gaveUp   string // why the generator gave up on it, once it has
}

type compileResult struct {
	s   *schema
	err error
}

// compile compiles a tool's schema, named "<tool>/inputSchema" or
// "<tool>/outputSchema", once per run: the schema check, the calls, the
// invalid arguments, the tasks checks and the fuzzer all read it, and a big
// schema costs a good part of a second.
func (s *suite) compile(raw json.RawMessage, name string) (*schema, error) {
	key := name + "\x00" + string(raw)
	s.schemaMu.Lock()
	defer s.schemaMu.Unlock()
	if r, ok := s.schemas[key]; ok {
		return r.s, r.err
	}
	sch, err := compileSchema(raw, name, s.matchTimeout)
	if s.schemas == nil {
		s.schemas = map[string]compileResult{}
	}
	s.schemas[key] = compileResult{sch, err}
	return sch, err
}

func compileSchema(raw json.RawMessage, name string, matchTimeout time.Duration) (*schema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("missing")
	}
	sch, err := toolschema.Compile(raw, name, matchTimeout)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err // compiled, so never
	}
	return &schema{doc: doc, compiled: sch}, nil
}

// unusable says why t's inputSchema gives no arguments: err from compile.
func unusable(t *client.Tool, err error) string {
	if errors.Is(err, toolschema.ErrTooBig) {
		return fmt.Sprintf("tool %q: the inputSchema was not read: %v", t.Name, err)
	}
	return fmt.Sprintf("the inputSchema is not valid (see tools/schemas/%s): %v", elem(t.Name), err)
}

// validate checks v against the schema.
func (s *schema) validate(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.validateJSON(b)
}

func (s *schema) validateJSON(b []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	return s.compiled.Validate(inst)
}

// tries is how many argument sets conforming generates before it gives up.
const tries = 8

// conforming generates arguments that validate against s, trying a few
// times. When none did, why says what stood in the way: a keyword asking
// for more than the generator makes (then it does not try again, on this
// schema), or how the last set broke the schema (a pattern the generator
// could not aim at, a combination it cannot meet); args are then the last
// set made, or {}.
func (s *schema) conforming(e entropy) (args map[string]any, why string) {
	args = map[string]any{}
	if s.gaveUp != "" {
		return args, s.gaveUp
	}
	g := newGen(e, s.doc)
	for range tries {
		g.left = genBudget
		v, _ := g.value(s.doc, 0).(map[string]any)
		if g.stop != "" {
			s.gaveUp = g.stop
			return args, g.stop
		}
		if v == nil {
			v = map[string]any{}
		}
		err := s.validate(v)
		if err == nil {
			return v, ""
		}
		args = v
		why = fmt.Sprintf("none of %d generated argument sets validated against it; the last, %s, failed: %s", tries, compactJSON(v), cut(err.Error(), 800))
	}
	if notes := g.patternNotes(); notes != "" {
		why += "\n" + notes
	}
	return args, why
}

// violation is a way to break a schema, with what it sends.
type violation struct {
	what string
	args map[string]any
	// harmless: a handler run on these arguments gets nothing it could act
	// on (an extra property a server may ignore), so a success is no defect.
	harmless bool
}

// violations returns arguments that each break s in one way: a required
// property left out, a property of the wrong type, a property the schema
// forbids. Each is checked to really fail validation. Without conforming
// arguments to start from there are none, and why says why.
func (s *schema) violations(e entropy) (out []violation, why string) {
	base, why := s.conforming(e)
	if why != "" {
		return nil, why
	}
	root, _ := s.doc.(map[string]any)
	add := func(what string, args map[string]any) {
		if s.validate(args) != nil {
			out = append(out, violation{what: what, args: args})
		}
	}
	if req, ok := root["required"].([]any); ok && len(req) > 0 {
		k, _ := req[0].(string)
		args := maps.Clone(base)
		delete(args, k)
		add(fmt.Sprintf("required property %q left out", k), args)
	}
	props, _ := root["properties"].(map[string]any)
	for _, k := range slices.Sorted(maps.Keys(props)) {
		pm, _ := props[k].(map[string]any)
		t, _ := pm["type"].(string)
		if t == "" {
			continue
		}
		args := maps.Clone(base)
		wrong := wrongValue(t)
		args[k] = wrong
		add(fmt.Sprintf("property %q of type %s given %s", k, t, compactJSON(wrong)), args)
		break
	}
	if ap, ok := root["additionalProperties"].(bool); ok && !ap {
		args := maps.Clone(base)
		args["mcptestkit_unexpected"] = "x"
		add(`property "mcptestkit_unexpected", which additionalProperties: false forbids`, args)
		if n := len(out); n > 0 && out[n-1].args["mcptestkit_unexpected"] != nil {
			out[n-1].harmless = true
		}
	}
	return out, ""
}

func wrongValue(typ string) any {
	switch typ {
	case "string":
		return 12345
	case "integer", "number":
		return "not a number"
	case "boolean":
		return "not a boolean" // "yes" and "true" pass lax parsers (pydantic) as booleans
	case "array":
		return "not an array"
	case "object":
		return "not an object"
	}
	return map[string]any{"unexpected": true}
}
