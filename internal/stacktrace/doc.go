// Package stacktrace reads goroutine stack traces as runtime/debug.Stack
// prints them, so that a report can tell two traces of the same code apart
// from two different crashes.
package stacktrace
