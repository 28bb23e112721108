package servercheck

import (
	"encoding/json"
	"strings"
	"testing"
)

// Each schema has one x-mcp-header annotation, and breaks the rule named,
// or none.
func TestHeaderAnnotationProblems(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":["integer","null"],"x-mcp-header":"B"}}}}}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string","default":{"x-mcp-header":""}}}}`, "none"},
		{`{"type":"object","x-mcp-header":"Root"}`, "on the schema root"},
		{`{"type":"object","oneOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "reached through oneOf/0/properties/a"},
		{`{"type":"object","$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`, "reached through $defs/d"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, "is empty"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A\r\nB"}}}`, "control character"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A:B"}}}`, "not an HTTP field-name token"},
		{`{"type":"object","properties":{"a":{"type":"string","x-mcp-header":7}}}`, "is 7, not a string"},
		{`{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`, "left unsaid"},
		{`{"type":"object","properties":{"a":{"type":["string","integer"],"x-mcp-header":"A"}}}`, `of type ["string","integer"]`},
	} {
		var root any
		if err := json.Unmarshal([]byte(tc.schema), &root); err != nil {
			t.Fatal(err)
		}
		var anns []headerAnnotation
		walkHeaderAnnotations(root, nil, true, &anns)
		if tc.want == "none" {
			if len(anns) != 0 {
				t.Errorf("%s: found %d annotations in a default value", tc.schema, len(anns))
			}
			continue
		}
		if len(anns) != 1 {
			t.Fatalf("%s: found %d annotations, want 1", tc.schema, len(anns))
		}
		var got []string
		for _, p := range anns[0].problems() {
			got = append(got, p.got)
		}
		switch {
		case tc.want == "" && len(got) != 0:
			t.Errorf("%s: problems %q, want none", tc.schema, got)
		case tc.want != "" && !strings.Contains(strings.Join(got, "; "), tc.want):
			t.Errorf("%s: problems %q, want one saying %q", tc.schema, got, tc.want)
		}
	}
}
