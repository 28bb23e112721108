// Package toolrule holds the rules of a tool result that both sides of the
// kit judge by: CheckServer's checks (mcptest/servercheck) and the
// assertions (mcptest.Assert). Written once here, so that a result one of
// them calls a defect the other does too.
package toolrule

import (
	"bytes"

	"github.com/mcptestkit/mcptestkit/client"
)

// HasStructured reports whether res carries structuredContent (present and
// not null).
func HasStructured(res *client.CallToolResult) bool {
	s := bytes.TrimSpace(res.StructuredContent)
	return len(s) > 0 && !bytes.Equal(s, []byte("null"))
}

// StructuredOnError is the rule "a tool error carries no structuredContent":
// a failed call has no value to structure, and a client that validates
// structuredContent against the tool's outputSchema would judge the error's
// as output (the kit's error contract, as the Python SDK keeps it: an
// isError result has structured_content None). It returns what is wrong
// with res, or "".
func StructuredOnError(res *client.CallToolResult) string {
	if res == nil || !res.IsError || !HasStructured(res) {
		return ""
	}
	return "a tool error must not carry structuredContent, got " + string(bytes.TrimSpace(res.StructuredContent))
}
