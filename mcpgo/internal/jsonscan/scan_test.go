package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

var seeds = []string{
	`{"a":1}`, `[1, -2.5e+3, true, false, null, "s\"\\\/\b\f\n\r\t\u00e9"]`, ` { "a" : [ ] , "b" : { } } `,
	`"\x"`, `"\u12"`, `tru`, `-`, `1.`, `1e`, `01`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `"ctl` + "\x01" + `"`,
	"\"bad\xff\"", `1 2`, ``, ` `, `{"a":{"b":[{"c":null}]}}`,
	strings.Repeat("[", 64) + strings.Repeat("]", 64), strings.Repeat("[", 65) + strings.Repeat("]", 65),
}

// FuzzValid checks the scanner accepts exactly the JSON encoding/json
// accepts, up to its depth limit.
func FuzzValid(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ok, valid := Valid(data), json.Valid(data)
		if ok && !valid {
			t.Fatalf("%q: scanned, but encoding/json rejects it", data)
		}
		if !ok && valid && bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) <= maxScanDepth {
			t.Fatalf("%q: not scanned, but encoding/json accepts it", data)
		}
	})
}

// FuzzObject checks Object hands out each member as encoding/json sees it.
func FuzzObject(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys []string
		var values [][]byte
		ok := Object(data, func(key []byte, escaped bool, value []byte) bool {
			if !escaped && utf8.Valid(key) { // encoding/json mends invalid keys
				keys = append(keys, string(key))
				values = append(values, value)
			}
			return true
		})
		var m map[string]json.RawMessage
		err := json.Unmarshal(data, &m)
		if ok && (err != nil || m == nil) {
			t.Fatalf("%q: scanned as an object, but encoding/json says %v", data, err)
		}
		if !ok {
			return
		}
		last := map[string][]byte{}
		for i, k := range keys {
			last[k] = values[i]
		}
		for k, v := range last {
			if !bytes.Equal(m[k], v) {
				t.Fatalf("%q: member %q is %s, encoding/json says %s", data, k, v, m[k])
			}
		}
	})
}

func FuzzArray(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var elems [][]byte
		ok := Array(data, func(v []byte) bool { elems = append(elems, v); return true })
		var a []json.RawMessage
		err := json.Unmarshal(data, &a)
		if ok != (err == nil && a != nil) && bytes.Count(data, []byte("{"))+bytes.Count(data, []byte("[")) <= maxScanDepth {
			t.Fatalf("%q: Array says %v, encoding/json %v", data, ok, err)
		}
		if ok && len(elems) != len(a) {
			t.Fatalf("%q: %d elements, encoding/json %d", data, len(elems), len(a))
		}
		for i := range elems {
			if ok && !bytes.Equal(elems[i], a[i]) {
				t.Fatalf("%q: element %d is %s, encoding/json %s", data, i, elems[i], a[i])
			}
		}
	})
}

func FuzzString(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		data = bytes.Trim(data, " \t\r\n")
		if len(data) == 0 || data[0] != '"' || !Valid(data) {
			return
		}
		got, ok := String(data)
		var want string
		if err := json.Unmarshal(data, &want); !ok || err != nil || got != want {
			t.Fatalf("%q: %q %v, encoding/json %q %v", data, got, ok, want, err)
		}
	})
}

func TestFolds(t *testing.T) {
	for key, want := range map[string]bool{"ID": true, "iD": true, "Id": true, "idx": false, "other": false, "K": true, "ſ": true} {
		if got := Folds([]byte(key), "id", "k"); got != want {
			t.Errorf("Folds(%q) = %v, want %v", key, got, want)
		}
	}
}
