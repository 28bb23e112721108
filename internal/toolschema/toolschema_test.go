package toolschema_test

import (
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/toolschema"
)

func TestCompile(t *testing.T) {
	for _, tc := range []struct {
		name, raw, wantErr string
	}{
		{"valid", `{"type":"object","properties":{"n":{"type":"integer"}}}`, ""},
		{"draft 2020 by default", `{"type":"object","prefixItems":[{"type":"string"}]}`, ""},
		{"not JSON", `{`, "not valid JSON"},
		{"external ref", `{"$ref":"https://example.com/s.json"}`, "external schemas are not loaded"},
		{"invalid keyword value", `{"type":7}`, "type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := toolschema.Compile([]byte(tc.raw), "tool with space/inputSchema")
			if tc.wantErr == "" {
				if err != nil || s == nil {
					t.Fatalf("Compile(%s) = %v, %v; want a schema", tc.raw, s, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Compile(%s) error = %v; want one containing %q", tc.raw, err, tc.wantErr)
			}
		})
	}
}
