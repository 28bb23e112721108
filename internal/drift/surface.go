package drift

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Change is one difference between two surfaces.
type Change struct {
	// Path locates the change: tools["search"].inputSchema.properties.limit.maximum.
	Path string
	// Breaking says a client that worked with the old surface may fail with
	// the new one.
	Breaking bool
	// Reason says what changed and, for a breaking change, what breaks.
	Reason string
}

func (c Change) String() string {
	kind := "compatible"
	if c.Breaking {
		kind = "BREAKING"
	}
	return fmt.Sprintf("%-10s  %s: %s", kind, c.Path, c.Reason)
}

// ErrNoSurface is returned by [Parse] for JSON that holds none of the lists
// of a server.
var ErrNoSurface = errors.New("holds no tools, resources, resource templates, prompts or capabilities")

// Surface is what a server offers, as its lists and its capabilities give
// it. A list a document does not hold is not compared.
type Surface struct {
	lists [nKinds]map[string]map[string]any // by kind, by key; nil: not in the document
	caps  map[string]any                    // nil: not in the document
}

type kind int

const (
	tools kind = iota
	resources
	templates
	prompts
	nKinds
)

// kinds names each list as the protocol does, with the member that
// identifies an item.
var kinds = [nKinds]struct{ list, key string }{
	tools:     {"tools", "name"},
	resources: {"resources", "uri"},
	templates: {"resourceTemplates", "uriTemplate"},
	prompts:   {"prompts", "name"},
}

// Parse reads a surface from JSON: what `mcptestkit list --format json`
// prints, a golden file of a list result ({"tools": [...]}), or a bare list
// (an array of tools, resources, templates or prompts).
func Parse(data []byte) (*Surface, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	s := &Surface{}
	switch v := v.(type) {
	case map[string]any:
		for k := range nKinds {
			items, ok := v[kinds[k].list]
			if !ok {
				continue
			}
			arr, ok := items.([]any)
			if !ok && items != nil {
				return nil, fmt.Errorf("%q is not a list", kinds[k].list)
			}
			if err := s.add(k, arr); err != nil {
				return nil, err
			}
		}
		if c, ok := v["capabilities"].(map[string]any); ok {
			s.caps = c
			// A listing leaves out an empty list: a declared capability
			// whose list is absent lists nothing.
			for k, capName := range [nKinds]string{tools: "tools", resources: "resources", templates: "resources", prompts: "prompts"} {
				if _, declared := c[capName]; declared && s.lists[k] == nil {
					s.lists[k] = map[string]map[string]any{}
				}
			}
		}
	case []any:
		if len(v) == 0 {
			return nil, fmt.Errorf("an empty list: %w", ErrNoSurface)
		}
		k, ok := guess(v[0])
		if !ok {
			return nil, ErrNoSurface
		}
		if err := s.add(k, v); err != nil {
			return nil, err
		}
	default:
		return nil, ErrNoSurface
	}
	if s.caps == nil && !slices.ContainsFunc(s.lists[:], func(m map[string]map[string]any) bool { return m != nil }) {
		return nil, ErrNoSurface
	}
	return s, nil
}

// guess says which list a bare array holds from its first item.
func guess(item any) (kind, bool) {
	m, ok := item.(map[string]any)
	if !ok {
		return 0, false
	}
	switch {
	case m["inputSchema"] != nil:
		return tools, true
	case m["uriTemplate"] != nil:
		return templates, true
	case m["uri"] != nil:
		return resources, true
	case m["name"] != nil:
		return prompts, true
	}
	return 0, false
}

func (s *Surface) add(k kind, items []any) error {
	s.lists[k] = map[string]map[string]any{}
	first := map[string]int{} // each key's item
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return fmt.Errorf("%s[%d] is not an object", kinds[k].list, i)
		}
		key, ok := m[kinds[k].key].(string)
		if !ok {
			return fmt.Errorf("%s[%d] has no %q string", kinds[k].list, i, kinds[k].key)
		}
		if j, dup := first[key]; dup {
			// A client cannot tell the two apart: which one a call reaches
			// is the server's accident, and comparing either would hide
			// the other.
			return fmt.Errorf("%s[%d] and %s[%d] have the same %s %q: a server's list names each item once",
				kinds[k].list, j, kinds[k].list, i, kinds[k].key, key)
		}
		first[key] = i
		s.lists[k][key] = m
	}
	return nil
}
