package mcptest_test

import (
	"fmt"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/internal/faketb"
)

// runTest runs body as go test runs a test, with a stand-in for its
// *testing.T, so that an Example can show a test and check what it prints:
// the stand-in prints what the test reports (Error, Fatal, Log) as it
// reports it, Fatal ends the body, and the cleanups run when the body is
// done. An Example has no *testing.T to give, so the stand-in is the
// module's fake test (internal/faketb) with no test behind it: what neither
// overrides (TempDir and the like) panics.
func runTest(body func(t testing.TB)) {
	t := printingTB{faketb.New(nil, callerName())}
	done := make(chan struct{})
	go func() { // Fatal ends the goroutine it runs on, as in a test
		defer close(done)
		defer t.Finish()
		body(t)
	}()
	<-done
}

// callerName is the name of runTest's caller, the Example, which names the
// stand-in as go test names a test after its function.
func callerName() string {
	pc, _, _, _ := runtime.Caller(2)
	name := runtime.FuncForPC(pc).Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}

// printingTB prints what the test reports, and records it as the fake test
// does (so Failed, which the harness reads, says whether it failed).
type printingTB struct{ *faketb.TB }

func (t printingTB) Errorf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	t.TB.Errorf(format, args...)
}

func (t printingTB) Error(args ...any) {
	fmt.Println(args...)
	t.TB.Error(args...)
}

func (t printingTB) Logf(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	t.TB.Logf(format, args...)
}

func (t printingTB) Log(args ...any) {
	fmt.Println(args...)
	t.TB.Log(args...)
}

func (t printingTB) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	runtime.Goexit()
}

func (t printingTB) Fatal(args ...any) {
	t.Error(args...)
	runtime.Goexit()
}

// Every Example of package mcptest and the packages below it has an output
// comment, so go test runs it and checks what it prints: an example that
// only compiles can drift from the API it shows without anyone noticing.
func TestExamplesRun(t *testing.T) {
	t.Parallel()
	found := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, ex := range doc.Examples(f) {
			found++
			if ex.Output == "" && !ex.EmptyOutput {
				t.Errorf("%s: Example%s has no // Output: comment, so go test compiles it but never runs it", path, ex.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found == 0 {
		t.Fatal("found no Example in the package's test files: the test looks in the wrong place")
	}
}
