package leak

import (
	"context"
	"runtime/pprof"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blockUntil parks until release closes: the leaked goroutine of the tests.
func blockUntil(release <-chan struct{}) { <-release }

// The goroutine profile lists the largest group first, under its header
// line: a connection that leaks more goroutines of one kind than any other
// group of the process holds is that group, and is found. (It was read as
// part of the header and missed: a package whose only test leaked two
// goroutines passed.)
func TestRunningFindsTheLargestGroup(t *testing.T) {
	label := NewLabel()
	release := make(chan struct{})
	var started, ended sync.WaitGroup
	const n = 200 // more than any other group of this test binary
	pprof.Do(context.Background(), pprof.Labels(Key, label), func(context.Context) {
		for range n {
			started.Add(1)
			ended.Add(1)
			go func() {
				defer ended.Done()
				started.Done()
				blockUntil(release)
			}()
		}
	})
	started.Wait()
	groups := Running(label, nil)
	close(release)
	ended.Wait()
	require.Len(t, groups, 1, "the labelled goroutines, in one group")
	assert.Equal(t, n, groups[0].Count)
	assert.Contains(t, groups[0].Functions, "github.com/mcptestkit/mcptestkit/mcptest/internal/leak.blockUntil")
}

func TestParseGroupSkipsTheProfileHeader(t *testing.T) {
	g, ok := parseGroup("goroutine profile: total 5\n2 @ 0x1 0x2\n# labels: {\"" + Key + "\":\"x\"}\n#\t0x1\tpkg.fn+0x18\t/f.go:3")
	require.True(t, ok)
	assert.Equal(t, 2, g.Count)
	assert.Equal(t, []string{"pkg.fn"}, g.Functions)
}
