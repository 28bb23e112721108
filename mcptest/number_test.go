package mcptest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/client"
)

func structured(raw string) *client.CallToolResult {
	return &client.CallToolResult{StructuredContent: json.RawMessage(raw)}
}

// Numbers compare by value: an int in the expected Go value equals the same
// number however the server spelled it.
func TestAssertStructuredComparesNumbersByValue(t *testing.T) {
	t.Parallel()
	type count struct {
		Title string  `json:"title"`
		Words int     `json:"words"`
		Ratio float64 `json:"ratio"`
	}
	for _, raw := range []string{
		`{"title":"x","words":3,"ratio":0.5}`,
		`{"title":"x","words":3.0,"ratio":0.50}`,
		`{"title":"x","words":3e0,"ratio":5e-1}`,
	} {
		check(t, true, func(a *Assertions) bool { return a.Structured(structured(raw), count{"x", 3, 0.5}) })
		check(t, true, func(a *Assertions) bool {
			return a.Structured(structured(raw), map[string]any{"title": "x", "words": 3.0, "ratio": json.Number("0.5")})
		})
	}
	// Integers a float64 cannot hold keep every digit: one apart is a
	// difference, and the diff shows them in full.
	big := structured(`{"id":9007199254740993}`)
	check(t, true, func(a *Assertions) bool { return a.Structured(big, map[string]any{"id": uint64(9007199254740993)}) })
	check(t, false, func(a *Assertions) bool { return a.Structured(big, map[string]any{"id": uint64(9007199254740992)}) },
		"9007199254740992", "9007199254740993")
}

// The diff prints numbers as numbers, not as go-cmp's rendering of a
// json.Number (s"3").
func TestAssertStructuredDiffPrintsPlainNumbers(t *testing.T) {
	t.Parallel()
	r := &recorder{}
	ok := Assert(r).Structured(structured(`{"title":"x","words":2}`), map[string]any{"title": "x", "words": 3})
	require.False(t, ok)
	out := r.text()
	// go-cmp varies the spaces after -/+ on purpose; match the rest.
	assert.Contains(t, out, `"words": float64(3),`)
	assert.Contains(t, out, `"words": float64(2),`)
	assert.NotContains(t, out, `s"3"`)
	assert.NotContains(t, out, "json.Number")
}

func TestNumberValueAndCanonicalText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in        string
		value     any
		canonical string
	}{
		{"3", 3.0, "3"},
		{"3.0", 3.0, "3"},
		{"3e0", 3.0, "3"},
		{"-0.50", -0.5, "-0.5"},
		{"0.1", 0.1, "0.1"},
		{"1e21", 1e21, "1e+21"},
		{"9007199254740992", 9007199254740992.0, "9007199254740992"},
		{"9007199254740993", exactNumber("9007199254740993"), "9007199254740993"},
		{"9.007199254740993e15", exactNumber("9007199254740993"), "9007199254740993"},
		{"0.12345678901234567890123", exactNumber("0.12345678901234567890123"), "0.12345678901234567890123"},
		{"1e400", exactNumber("1" + string(make400Zeros())), "1" + string(make400Zeros())},
	} {
		assert.Equal(t, tc.value, numberValue(json.Number(tc.in)), tc.in)
		assert.Equal(t, json.Number(tc.canonical), canonicalNumber(json.Number(tc.in)), tc.in)
	}
}

func make400Zeros() []byte {
	b := make([]byte, 400)
	for i := range b {
		b[i] = '0'
	}
	return b
}

// Golden compares numbers by value too: the server may spell a number
// differently from the file without the test failing.
func TestNormalizeWritesNumbersCanonically(t *testing.T) {
	t.Parallel()
	a, err := Normalize(json.RawMessage(`{"words":3.0,"ratio":5e-1,"big":12345678901234567890,"list":[1.50,2E2]}`))
	require.NoError(t, err)
	b, err := Normalize(map[string]any{"words": 3, "ratio": 0.5, "big": uint64(12345678901234567890), "list": []float64{1.5, 200}})
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	assert.Contains(t, string(a), `"big": 12345678901234567890`)
	assert.Contains(t, string(a), `"words": 3`)

	// Verbatim keeps numbers as sent, and Transform still sees json.Number.
	v, err := Normalize(json.RawMessage(`{"words":3.0}`), Verbatim())
	require.NoError(t, err)
	assert.Contains(t, string(v), `"words": 3.0`)
	var seen any
	_, err = Normalize(json.RawMessage(`{"words":3.0}`), Transform(func(v any) any { seen = v.(map[string]any)["words"]; return v }))
	require.NoError(t, err)
	assert.Equal(t, json.Number("3"), seen)
}
