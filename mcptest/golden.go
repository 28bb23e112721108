package mcptest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/mcptestkit/mcptestkit/internal/drift"
	"github.com/mcptestkit/mcptestkit/internal/textdiff"
)

// updateEnv is the environment variable that makes [Assertions.Golden]
// rewrite its files instead of comparing: MCPTEST_UPDATE=1 go test ./...
const updateEnv = "MCPTEST_UPDATE"

// updateFlag is the command-line flag that makes [Assertions.Golden]
// rewrite its files: go test ./mypkg -mcptest.update. It has its own name
// so that it never clashes with an -update flag of yours; if your test
// binary defines a boolean -update flag, Golden honours that one too.
const updateFlag = "mcptest.update"

// A command-line flag has to exist before the testing package parses the
// command line, which happens before any test runs, so it is registered when
// the package is initialised: the one piece of package state mcptest keeps.
func init() {
	if flag.Lookup(updateFlag) == nil {
		flag.Bool(updateFlag, false, "rewrite mcptest golden files under testdata/ instead of comparing")
	}
}

type goldenConfig struct {
	drop       map[string]bool
	transforms []func(any) any
	raw        bool
}

// IgnoreFields removes every object member with one of these names, at any
// depth, before comparing: for values of your own that change between runs
// (timestamps, generated ids). It applies to Golden and Normalize, as
// [Transform] and [Verbatim] do.
func IgnoreFields(names ...string) Option {
	return option("IgnoreFields", goldenCall, func(cfg *config) {
		c := &cfg.golden
		if c.drop == nil {
			c.drop = map[string]bool{}
		}
		for _, n := range names {
			c.drop[n] = true
		}
	})
}

// Transform adds a normalisation step. fn receives the whole value as generic
// JSON (map[string]any, []any, string, json.Number, bool, nil) after the
// built-in steps and returns the value to compare; it may modify its argument.
func Transform(fn func(v any) any) Option {
	return option("Transform", goldenCall, func(c *config) { c.golden.transforms = append(c.golden.transforms, fn) })
}

// Verbatim turns off the built-in normalisation (the stamps, cache hints and
// request ids [Normalize] removes). [IgnoreFields] and [Transform] still
// apply.
func Verbatim() Option {
	return option("Verbatim", goldenCall, func(c *config) { c.golden.raw = true })
}

// Normalize returns value as pretty JSON (two-space indent, object members
// sorted by name, a trailing newline) after removing what changes between
// runs, protocol versions and SDK versions, so that the same server gives the
// same bytes everywhere:
//
//   - inside every "_meta" object, the protocol's own stamps (members named
//     "io.modelcontextprotocol/...", such as the serverInfo stamp of
//     2026-07-28 results); a "_meta" left empty is removed;
//   - on the result object (the value itself, or the "result" of a JSON-RPC
//     message) the caching hints "ttlMs" and "cacheScope", and "resultType"
//     when it is "complete" (the 2026-07-28 marker every finished result
//     carries);
//   - JSON-RPC request ids, renumbered 1, 2, 3... in order of first
//     appearance, so that a request still pairs with its response;
//   - the spelling of numbers: each is written the way encoding/json writes
//     a float64 (3.0 and 3e0 become 3, 1.50 becomes 1.5), so that a golden
//     file compares numbers by value. A number a float64 cannot hold (an
//     integer beyond 2^53) keeps all its digits.
//
// These are removed only where the protocol puts them, never from inside
// schemas or content, where a field may legitimately have the same name.
//
// value may be any Go value that encoding/json can marshal, or JSON text as
// a json.RawMessage or []byte. Options add steps ([IgnoreFields],
// [Transform]) or turn the built-in ones off ([Verbatim]).
func Normalize(value any, opts ...Option) ([]byte, error) {
	all := newConfig(opts)
	if msg := all.misused(goldenCall); msg != "" {
		return nil, errors.New(msg)
	}
	cfg := all.golden
	v, err := toGeneric(value)
	if err != nil {
		return nil, err
	}
	if !cfg.raw {
		v = normalizeBuiltin(v)
	}
	if len(cfg.drop) > 0 {
		v = dropFields(v, cfg.drop)
	}
	for _, fn := range cfg.transforms {
		v = fn(v)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("mcptest: encoding the normalised value: %w", err)
	}
	return buf.Bytes(), nil
}

// toGeneric turns value into generic JSON, keeping numbers exactly as
// written (json.Number) so that normalising never rounds a large integer.
func toGeneric(value any) (any, error) {
	var data []byte
	switch v := value.(type) {
	case json.RawMessage:
		data = v
	case []byte:
		data = v
	default:
		b, err := json.Marshal(value)
		if err != nil {
			return nil, fmt.Errorf("mcptest: the value (%T) cannot be encoded as JSON: %w", value, err)
		}
		data = b
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("mcptest: the value is not valid JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("mcptest: the value holds more than one JSON value")
	}
	return out, nil
}

const protocolMetaPrefix = "io.modelcontextprotocol/"

func normalizeBuiltin(v any) any {
	v = canonicalNumbers(v)
	ids := map[string]int{}
	if list, ok := v.([]any); ok {
		for i, e := range list {
			list[i] = normalizeTop(e, ids)
		}
		return list
	}
	return normalizeTop(v, ids)
}

// normalizeTop handles one top-level value: a JSON-RPC message (an object
// with "jsonrpc") or a bare result.
func normalizeTop(v any, ids map[string]int) any {
	if obj, ok := v.(map[string]any); ok {
		if _, isMessage := obj["jsonrpc"]; isMessage {
			if id, ok := obj["id"]; ok && id != nil {
				key := fmt.Sprint(id)
				if _, isString := id.(string); isString {
					key = strconv.Quote(key)
				}
				n, seen := ids[key]
				if !seen {
					n = len(ids) + 1
					ids[key] = n
				}
				obj["id"] = json.Number(strconv.Itoa(n))
			}
		}
	}
	v, _ = stripStamps(v, nil)
	return v
}

// stripStamps removes from one value, a JSON-RPC message or a bare result,
// what the protocol stamps on every message: the "io.modelcontextprotocol/"
// members of every "_meta" for which drop returns true (nil drops them all)
// and the result-level hints. It reports whether it removed anything. It
// modifies v. [Normalize] and the transcript a failing test prints share it.
func stripStamps(v any, drop func(key string, value any) bool) (any, bool) {
	removed := false
	if obj, ok := v.(map[string]any); ok {
		res := obj
		if _, isMessage := obj["jsonrpc"]; isMessage {
			res, _ = obj["result"].(map[string]any)
		}
		if res != nil {
			removed = stripResultHints(res)
		}
	}
	return stripMeta(v, drop, &removed), removed
}

// stripResultHints removes the caching hints and the "complete" marker from
// a result, reporting whether there were any.
func stripResultHints(res map[string]any) bool {
	n := len(res)
	delete(res, "ttlMs")
	delete(res, "cacheScope")
	if res["resultType"] == "complete" {
		delete(res, "resultType")
	}
	return len(res) < n
}

// stripMeta removes the protocol's stamps that drop selects (nil: all)
// from every "_meta" object, and sets *removed when it removes one.
func stripMeta(v any, drop func(key string, value any) bool, removed *bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "_meta" {
				if m, ok := e.(map[string]any); ok {
					for mk := range m {
						if strings.HasPrefix(mk, protocolMetaPrefix) && (drop == nil || drop(mk, m[mk])) {
							delete(m, mk)
							*removed = true
						}
					}
					if len(m) == 0 {
						delete(x, k)
						continue
					}
				}
			}
			x[k] = stripMeta(e, drop, removed)
		}
	case []any:
		for i, e := range x {
			x[i] = stripMeta(e, drop, removed)
		}
	}
	return v
}

func dropFields(v any, names map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if names[k] {
				delete(x, k)
				continue
			}
			x[k] = dropFields(e, names)
			if m, ok := x[k].(map[string]any); ok && k == "_meta" && len(m) == 0 {
				delete(x, k) // as the built-in steps leave no empty _meta
			}
		}
	case []any:
		for i, e := range x {
			x[i] = dropFields(e, names)
		}
	}
	return v
}

// Golden compares value, normalised by [Normalize], with the file
// testdata/<name>.json of the package under test, and reports a diff when
// they differ. It returns whether they matched.
//
// To create or refresh the file, run the tests with MCPTEST_UPDATE=1 in the
// environment, or with the -mcptest.update flag (go test ./mypkg
// -mcptest.update); Golden then writes the file and passes. A boolean -update
// flag defined by your own test package is honoured as well, so
// `go test -update` works when you declare it:
//
//	var _ = flag.Bool("update", false, "update golden files")
//
// name may contain slashes to use subdirectories of testdata; it must not be
// absolute or climb out of testdata with "..". Typical use, so that a schema
// change shows up in review as a diff:
//
//	tools, err := c.ListTools(t.Context(), "")
//	require.NoError(t, err)
//	mcptest.Assert(t).Golden("tools", tools)
func (a *Assertions) Golden(name string, value any, opts ...Option) bool {
	a.h.Helper()
	file, err := goldenPath(name)
	if err != nil {
		return a.fail("%v", err)
	}
	got, err := Normalize(value, opts...)
	if err != nil {
		return a.fail("mcptest: Golden(%q): %v", name, err)
	}
	update, err := updating()
	if err != nil {
		return a.fail("mcptest: Golden(%q): %v", name, err)
	}
	if update {
		return a.updateGolden(name, file, got)
	}
	want, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return a.fail("mcptest: Golden(%q): %s does not exist yet. Run the test with MCPTEST_UPDATE=1 (or -mcptest.update) to write it, and review it.\n%s", name, file, head(string(got), verbose()))
	}
	if err != nil {
		return a.fail("mcptest: Golden(%q): reading %s: %v", name, file, err)
	}
	want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n")) // a Windows checkout may convert line ends
	want = bytes.TrimPrefix(want, []byte("\ufeff"))             // and an editor may add a byte order mark
	if bytes.Equal(want, got) {
		return true
	}
	diff := textdiff.Unified(file, "actual", string(want), string(got))
	return a.fail("mcptest: Golden(%q): the value differs from %s:\n%s%s%s", name, file, classify(want, got), diff, howToUpdate)
}

// classify says which changes break clients, above the diff, when both
// sides are lists of a server (tools/list, a listing); "" otherwise.
func classify(want, got []byte) string {
	old, err := drift.Parse(want)
	if err != nil {
		return ""
	}
	new, err := drift.Parse(got)
	if err != nil {
		return ""
	}
	return drift.Report(drift.Compare(old, new))
}

// goldenWrites is what each golden file was updated to in this test binary,
// and by which test. The files are shared by every test of the process, so
// tests that update one file under t.Parallel must agree on its content: a
// second, different value is a failure, not a silent last write wins.
var goldenWrites sync.Map // absolute path -> goldenWrite

type goldenWrite struct {
	test    string
	content []byte
}

// updateGolden writes got to file, atomically (a temporary file renamed over
// it), so a reader never sees half a file.
func (a *Assertions) updateGolden(name, file string, got []byte) bool {
	a.h.Helper()
	test := "a test"
	if n, ok := a.t.(interface{ Name() string }); ok {
		test = n.Name()
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return a.fail("mcptest: Golden(%q): %v", name, err)
	}
	if prev, loaded := goldenWrites.LoadOrStore(abs, goldenWrite{test, got}); loaded {
		prev := prev.(goldenWrite)
		if bytes.Equal(prev.content, got) {
			return true
		}
		diff := textdiff.Unified(file+" (from "+prev.test+")", "this value (from "+test+")", string(prev.content), string(got))
		return a.fail("mcptest: Golden(%q): %s was already updated in this run by %s with another value; "+
			"tests that share a golden file must give it the same value:\n%s", name, file, prev.test, diff)
	}
	if err := writeAtomically(file, got); err != nil {
		goldenWrites.Delete(abs)
		return a.fail("mcptest: Golden(%q): writing %s: %v", name, file, err)
	}
	if l, ok := a.t.(interface{ Logf(string, ...any) }); ok {
		l.Logf("mcptest: Golden: wrote %s", file)
	}
	return true
}

func writeAtomically(file string, content []byte) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(content)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644) // CreateTemp makes it 0600
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

const howToUpdate = "If the new value is right, rerun the test with MCPTEST_UPDATE=1 (or -mcptest.update) to write it, and review the change."

// head returns the first lines of a value a test has no golden file for
// yet, saying how many more there are; all of it when all is set (go test
// -v). A value past maxShown is never printed whole: its first part is, and
// the whole value goes to a file in the temporary directory, named there.
func head(value string, all bool) string {
	const n = 10
	lines := textdiff.Lines(value)
	if len(value) <= maxShown && (all || len(lines) <= n+2) {
		return "The value is:\n" + value
	}
	k, size := 0, 0 // the first lines: n of them, or under -v all that fit
	for k < len(lines) && (all || k < n) && size+len(lines[k])+1 <= maxShown {
		size += len(lines[k]) + 1
		k++
	}
	shown := strings.Join(lines[:k], "\n")
	if k == 0 { // one line too long to print
		shown = strings.ToValidUTF8(lines[0][:maxShown], "") + "…"
	}
	where := "go test -v prints all"
	if len(value) > maxShown {
		where = "it is too long to print"
		if f, err := os.CreateTemp("", "mcptest-golden-*.json"); err == nil {
			_, err = f.WriteString(value)
			if cerr := f.Close(); err == nil && cerr == nil {
				where = "all of it is in " + f.Name()
			}
		}
	}
	return fmt.Sprintf("The value begins (%d of %d lines; %s):\n%s\n", k, len(lines), where, shown)
}

// maxShown bounds what a failure prints of a value.
const maxShown = 64 << 10

func goldenPath(name string) (string, error) {
	switch {
	case name == "":
		return "", errors.New("mcptest: Golden: the name is empty")
	case strings.Contains(name, `\`):
		return "", fmt.Errorf("mcptest: Golden(%q): use forward slashes in the name", name)
	case path.IsAbs(name) || filepath.IsAbs(name):
		return "", fmt.Errorf("mcptest: Golden(%q): the name must be relative to testdata/", name)
	}
	clean := path.Clean(name)
	if clean == ".." || strings.HasPrefix(clean, "../") || clean == "." {
		return "", fmt.Errorf("mcptest: Golden(%q): the name must stay inside testdata/", name)
	}
	return filepath.Join("testdata", filepath.FromSlash(clean)+".json"), nil
}

// updating reports whether golden files should be rewritten, from the
// environment variable, mcptest's own flag, or the caller's -update flag.
func updating() (bool, error) {
	if v, ok := os.LookupEnv(updateEnv); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("%s=%q is not a boolean (use 1 or 0)", updateEnv, v)
		}
		return b, nil
	}
	for _, name := range []string{updateFlag, "update"} {
		f := flag.Lookup(name)
		if f == nil {
			continue
		}
		if b, err := strconv.ParseBool(f.Value.String()); err == nil && b {
			return true, nil
		}
	}
	return false, nil
}
