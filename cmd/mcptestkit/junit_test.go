package main

import (
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// junitSchema is the structure of the JUnit XSD that CI systems read
// (the Ant/Jenkins junit.xsd): for each element, the attributes it requires,
// the other attributes it allows, and the children it may have.
var junitSchema = map[string]struct {
	required, optional []string
	children           []string
}{
	"testsuites": {optional: []string{"name", "tests", "failures", "errors", "skipped", "disabled", "time"}, children: []string{"testsuite"}},
	"testsuite": {
		required: []string{"name", "tests", "failures", "errors", "time", "timestamp", "hostname", "id", "package"},
		optional: []string{"skipped", "disabled"},
		children: []string{"properties", "testcase", "system-out", "system-err"},
	},
	"testcase":   {required: []string{"name", "classname", "time"}, optional: []string{"assertions", "status"}, children: []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"failure":    {required: []string{"message", "type"}},
	"error":      {required: []string{"message", "type"}},
	"skipped":    {optional: []string{"message"}},
	"system-out": {},
	"system-err": {},
}

var (
	xsdDecimal   = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	xsdInt       = regexp.MustCompile(`^[0-9]+$`)
	xsdTimestamp = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

// tester is what the validator needs of a *testing.T, so that a test can
// check that the validator fails.
type tester interface {
	Errorf(format string, args ...any)
	FailNow()
	Helper()
}

type xmlNode struct {
	name     string
	attrs    map[string]string
	children []*xmlNode
}

func parseXML(t tester, data string) *xmlNode {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(data))
	var stack []*xmlNode
	var root *xmlNode
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the JUnit report is not well-formed XML:\n%s", data)
		switch tk := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) == 0 {
				require.Nil(t, root, "two root elements")
				root = n
			} else {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
	require.NotNil(t, root, "no root element")
	return root
}

// validateJUnit checks a JUnit report against junitSchema and checks that
// its counts add up; it returns the test cases by name.
func validateJUnit(t tester, data string) map[string]*xmlNode {
	t.Helper()
	root := parseXML(t, data)
	require.Equal(t, "testsuites", root.name)
	var walk func(n *xmlNode, path string)
	walk = func(n *xmlNode, path string) {
		path += "/" + n.name
		s, ok := junitSchema[n.name]
		if !assert.True(t, ok, "%s: not an element of the JUnit schema", path) {
			return
		}
		for _, a := range s.required {
			assert.Contains(t, n.attrs, a, "%s: the required attribute %q is missing", path, a)
		}
		for a, v := range n.attrs {
			known := false
			for _, k := range append(append([]string{}, s.required...), s.optional...) {
				known = known || k == a
			}
			assert.True(t, known, "%s: attribute %q is not in the schema", path, a)
			switch a {
			case "tests", "failures", "errors", "skipped", "id":
				assert.Regexp(t, xsdInt, v, "%s/@%s", path, a)
			case "time":
				assert.Regexp(t, xsdDecimal, v, "%s/@%s", path, a)
			case "timestamp":
				assert.Regexp(t, xsdTimestamp, v, "%s/@%s", path, a)
			}
		}
		for _, c := range n.children {
			assert.Contains(t, s.children, c.name, "%s: <%s> may not contain <%s>", path, n.name, c.name)
			walk(c, path)
		}
	}
	walk(root, "")

	cases := map[string]*xmlNode{}
	total := map[string]int{}
	for _, suite := range root.children {
		count := map[string]int{}
		for _, tc := range suite.children {
			if tc.name != "testcase" {
				continue
			}
			cases[tc.attrs["name"]] = tc
			count["tests"]++
			for _, c := range tc.children {
				count[map[string]string{"failure": "failures", "error": "errors", "skipped": "skipped"}[c.name]]++
			}
		}
		for _, k := range []string{"tests", "failures", "errors", "skipped"} {
			assert.Equal(t, strconv.Itoa(count[k]), suite.attrs[k], "testsuite %q: %s", suite.attrs["name"], k)
			total[k] += count[k]
		}
	}
	for _, k := range []string{"tests", "failures", "errors", "skipped"} {
		assert.Equal(t, strconv.Itoa(total[k]), root.attrs[k], "testsuites: %s", k)
	}
	return cases
}

func TestJUnitReport(t *testing.T) {
	rep := &report{Server: "-- ./server <stdio>", started: time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC), Duration: 1500 * time.Millisecond}
	rep.add(servercheck.Result{Name: "ping", Status: servercheck.Pass, Duration: time.Millisecond})
	rep.add(servercheck.Result{Name: "tools/calls/x", Status: servercheck.Fail, Detail: "called x\nexpected: a result & no <crash>",
		Transcript: []string{`→ {"method":"tools/call"}`, `← {"error":{}}`}})
	rep.add(servercheck.Result{Name: "resources/list", Status: servercheck.Skip, Detail: "the server does not declare the resources capability"})
	rep.add(servercheck.Result{Name: "tools/names", Status: servercheck.Warn, Detail: "tool name \"a b\" does not follow the naming rule"})
	var b strings.Builder
	require.NoError(t, writeJUnit(&b, rep))
	cases := validateJUnit(t, b.String())

	require.Len(t, cases, 4)
	// A warning passes, saying so, unless the run is strict.
	assert.Equal(t, "warn", cases["tools/names"].attrs["status"])
	require.Len(t, cases["tools/names"].children, 1)
	assert.Equal(t, "system-out", cases["tools/names"].children[0].name)
	assert.Equal(t, "fail", cases["tools/calls/x"].attrs["status"])
	assert.Empty(t, cases["ping"].children)
	fail := cases["tools/calls/x"].children
	require.Len(t, fail, 1)
	assert.Equal(t, "failure", fail[0].name)
	assert.Equal(t, "called x", fail[0].attrs["message"])
	assert.Contains(t, b.String(), "a result &amp; no &lt;crash&gt;")
	assert.Contains(t, b.String(), `← {&#34;error&#34;:{}}`)
	assert.Equal(t, "skipped", cases["resources/list"].children[0].name)
	assert.Contains(t, b.String(), `timestamp="2026-12-03T07:00:00"`)
	assert.Contains(t, b.String(), `time="1.500"`)

	strict := &report{Server: rep.Server, Strict: true, started: rep.started}
	strict.add(servercheck.Result{Name: "tools/names", Status: servercheck.Warn, Detail: "tool name \"a b\" does not follow the naming rule"})
	b.Reset()
	require.NoError(t, writeJUnit(&b, strict))
	cases = validateJUnit(t, b.String())
	require.Len(t, cases["tools/names"].children, 1)
	assert.Equal(t, "failure", cases["tools/names"].children[0].name)
	assert.Equal(t, "warning", cases["tools/names"].children[0].attrs["type"])
}

func TestJUnitReportConnectError(t *testing.T) {
	rep := &report{Server: "http://127.0.0.1:1/mcp", started: time.Now(), Error: "could not connect to http://127.0.0.1:1/mcp: refused", stage: "connect"}
	var b strings.Builder
	require.NoError(t, writeJUnit(&b, rep))
	cases := validateJUnit(t, b.String())
	require.Contains(t, cases, "connect")
	require.Len(t, cases["connect"].children, 1)
	assert.Equal(t, "error", cases["connect"].children[0].name)
	assert.Equal(t, rep.Error, cases["connect"].children[0].attrs["message"])
}

// The validator itself must fail on what the schema forbids.
func TestValidateJUnitCatchesErrors(t *testing.T) {
	for _, bad := range []string{
		`<testsuites tests="1" failures="0" errors="0" skipped="0"><testsuite name="s" tests="1" failures="0" errors="0" time="0" timestamp="2026-01-01T00:00:00" hostname="h" id="0" package="p"><testcase name="a" time="0"></testcase></testsuite></testsuites>`,                                     // no classname
		`<testsuites tests="1" failures="0" errors="0" skipped="0"><testsuite name="s" tests="2" failures="0" errors="0" time="0" timestamp="2026-01-01T00:00:00" hostname="h" id="0" package="p"><testcase name="a" classname="c" time="0"></testcase></testsuite></testsuites>`,                       // wrong count
		`<testsuites tests="1" failures="1" errors="0" skipped="0"><testsuite name="s" tests="1" failures="1" errors="0" time="0" timestamp="2026-01-01T00:00:00" hostname="h" id="0" package="p"><testcase name="a" classname="c" time="0"><failure message="m"/></testcase></testsuite></testsuites>`, // failure without type
		`<testsuites tests="1" failures="0" errors="0" skipped="0"><testsuite name="s" tests="1" failures="0" errors="0" time="1e3" timestamp="2026-01-01T00:00:00" hostname="h" id="0" package="p"><testcase name="a" classname="c" time="0"></testcase></testsuite></testsuites>`,                     // time not a decimal
	} {
		ft := &fakeT{}
		func() {
			defer func() {
				if r := recover(); r != nil && r != errFakeStop {
					panic(r)
				}
			}()
			validateJUnit(ft, bad)
		}()
		assert.True(t, ft.failed, "validateJUnit accepted %s", bad)
	}
}

// fakeT records that a check failed; FailNow stops the check with a panic
// the caller recovers.
type fakeT struct{ failed bool }

var errFakeStop = errors.New("FailNow")

func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) FailNow()              { f.failed = true; panic(errFakeStop) }
func (f *fakeT) Helper()               {}
