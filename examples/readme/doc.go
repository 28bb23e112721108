// Package readme holds the test that keeps the repository's README.md
// honest: every Go snippet in it is gofmt-clean, compiles, and runs.
package readme
