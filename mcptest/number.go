package mcptest

import (
	"encoding/json"
	"math/big"
	"strconv"
)

// JSON has one kind of number, and a server's 3, 3.0 and 3e0 are the same
// value; a Go test's expected value (an int, a float64) must compare equal to
// any of them. Generic JSON keeps numbers as json.Number text (so that
// normalising never rounds a large integer), which compares as text and
// which go-cmp prints as s"3". The helpers here compare and print numbers by
// value instead, without losing the digits of numbers a float64 cannot hold.

// exactNumber is a number that a float64 cannot hold exactly (an integer
// beyond 2^53, a decimal with more than 17 significant digits), in a
// canonical text, so that equal values compare equal. It encodes as a JSON
// number.
type exactNumber string

// MarshalJSON writes the number as a JSON number, not a string.
func (n exactNumber) MarshalJSON() ([]byte, error) { return []byte(n), nil }

// numberValue returns n as a float64 when a float64 holds its value (what a
// reader expects to see, and compares by value), else as an exactNumber.
func numberValue(n json.Number) any {
	f, text, ok := parseNumber(n)
	if !ok {
		return n // not a number: keep it, so the difference shows
	}
	if text == "" {
		return f
	}
	return exactNumber(text)
}

// canonicalNumber rewrites n in one canonical text per value: as
// encoding/json writes a float64 when a float64 holds the value, else in
// full.
func canonicalNumber(n json.Number) json.Number {
	f, text, ok := parseNumber(n)
	switch {
	case !ok:
		return n
	case text != "":
		return json.Number(text)
	}
	b, err := json.Marshal(f)
	if err != nil {
		return n
	}
	return json.Number(b)
}

// parseNumber reads n. When a float64 holds its value (the shortest text
// that reads back as f has the same value as n), it returns f and text "";
// otherwise the value's canonical text: the integer's digits, or the shortest
// decimal that identifies the value at a precision well above any JSON
// number seen in practice. ok is false when n is not a JSON number.
func parseNumber(n json.Number) (f float64, text string, ok bool) {
	exact, good := new(big.Rat).SetString(string(n))
	if !good {
		return 0, "", false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err == nil {
		short, _ := new(big.Rat).SetString(strconv.FormatFloat(f, 'g', -1, 64))
		if short != nil && short.Cmp(exact) == 0 {
			return f, "", true
		}
	}
	if exact.IsInt() {
		return 0, exact.Num().String(), true
	}
	return 0, new(big.Float).SetPrec(1024).SetRat(exact).Text('g', -1), true
}

// numbersByValue replaces every json.Number in generic JSON with
// [numberValue], for comparing with go-cmp. It modifies v.
func numbersByValue(v any) any {
	return mapNumbers(v, numberValue)
}

// canonicalNumbers rewrites every json.Number in generic JSON with
// [canonicalNumber]. It modifies v.
func canonicalNumbers(v any) any {
	return mapNumbers(v, func(n json.Number) any { return canonicalNumber(n) })
}

func mapNumbers(v any, fn func(json.Number) any) any {
	switch x := v.(type) {
	case json.Number:
		return fn(x)
	case map[string]any:
		for k, e := range x {
			x[k] = mapNumbers(e, fn)
		}
	case []any:
		for i, e := range x {
			x[i] = mapNumbers(e, fn)
		}
	}
	return v
}
