package mcptest

import "iter"

// drain reads a listing to its end, its first error, or 10000 items.
func drain[T any](seq iter.Seq2[T, error]) {
	n := 0
	for _, err := range seq {
		if n++; err != nil || n > 10000 {
			return
		}
	}
}
