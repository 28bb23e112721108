package mcptest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/mcptestkit/mcptestkit/mcptest/servercheck"
)

// findingLine is the last line of a check's failure (a warning's too, with
// StrictChecks), one line with a stable prefix that a CI step (a script
// over go test -json) can turn into an annotation:
//
//	mcptest: FAIL tools/calls/get_author check_test.go:12: called tool "get_author" ...
//
// The location is the test's CheckServer call, relative to the package's
// directory (where go test runs the test) as go test writes it; the
// check's name says which tool.
func findingLine(r servercheck.Result, at string) string {
	first, _, _ := strings.Cut(r.Detail, "\n")
	return fmt.Sprintf("mcptest: %s %s %s: %s", strings.ToUpper(r.Status.String()), r.Name, at, first)
}

// callSite is the file:line of the caller skip frames above its caller.
func callSite(skip int) string {
	_, file, line, ok := runtime.Caller(skip + 1)
	if !ok {
		return "unknown:0"
	}
	if wd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(wd, file); err == nil && !strings.HasPrefix(rel, "..") {
			file = filepath.ToSlash(rel)
		}
	}
	return fmt.Sprintf("%s:%d", file, line)
}
