package toolrule_test

import (
	"encoding/json"
	"testing"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/mcptest/internal/toolrule"
)

func TestStructuredOnError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		isError bool
		sc      string
		broken  bool
	}{
		{"error without", true, "", false},
		{"error with null", true, " null ", false},
		{"error with a value", true, `{"code":7}`, true},
		{"success with a value", false, `{"code":7}`, false},
	} {
		res := &client.CallToolResult{IsError: tc.isError, StructuredContent: json.RawMessage(tc.sc)}
		if got := toolrule.StructuredOnError(res); (got != "") != tc.broken {
			t.Errorf("%s: StructuredOnError = %q, want broken=%v", tc.name, got, tc.broken)
		}
	}
	if got := toolrule.StructuredOnError(nil); got != "" {
		t.Errorf("nil result: %q", got)
	}
}
