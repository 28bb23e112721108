// Package textdiff prints the difference of two texts line by line, as
// diff -u does: what mcptest's Golden and mcptestkit replay show when a value
// no longer matches its recording.
package textdiff
