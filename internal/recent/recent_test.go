package recent

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// Whatever the limit and however many entries, the log numbers them from 1
// and keeps the most recent limit of them, each at its number: checked
// against the obvious model across the chunk boundaries (8, 16, ..., 256).
func TestLogKeepsTheMostRecent(t *testing.T) {
	for _, limit := range []int{-1, 0, 1, 3, 8, 9, 100, 256, 1000} {
		for _, count := range []int{0, 1, 7, 8, 9, 100, 256, 257, 1500} {
			t.Run(fmt.Sprintf("limit %d, %d entries", limit, count), func(t *testing.T) {
				l := New[string](limit)
				for i := 1; i <= count; i++ {
					require.Equal(t, i, l.Add(fmt.Sprint(i)))
				}
				entries, omitted := l.Snapshot()
				want := count
				if limit >= 0 {
					want = min(count, limit)
				}
				require.Len(t, entries, want)
				assert.Equal(t, count-want, omitted)
				for i, e := range entries {
					require.Equal(t, fmt.Sprint(omitted+i+1), e, "entries[%d] is numbered omitted+i+1", i)
				}
				assert.LessOrEqual(t, l.held, max(want+chunkSize, 0), "it lets whole chunks go")
			})
		}
	}
}

func TestUpdate(t *testing.T) {
	l := New[string](3)
	for i := 1; i <= 20; i++ {
		l.Add(fmt.Sprint(i))
	}
	set := func(n int) { l.Update(n, func(e *string) { *e += "!" }) }
	for _, n := range []int{20, 18, 17, 1, 0, -1, 21} {
		set(n) // 17 is held but past the limit; the rest are gone or yet to come
	}
	entries, omitted := l.Snapshot()
	assert.Equal(t, []string{"18!", "19", "20!"}, entries)
	assert.Equal(t, 17, omitted)

	off := New[string](0)
	off.Add("x")
	off.Update(1, func(*string) { t.Error("a log that keeps nothing updates nothing") })
}

// Every entry in an unlimited log can be updated, whichever chunk it is in.
func TestUpdateAcrossChunks(t *testing.T) {
	l := New[int](-1)
	const count = 700 // chunks of 8, 16, 32, 64, 128, 256, 256
	for i := 1; i <= count; i++ {
		l.Add(0)
	}
	for n := 1; n <= count; n++ {
		l.Update(n, func(e *int) { *e = n })
	}
	entries, omitted := l.Snapshot()
	require.Zero(t, omitted)
	for i, e := range entries {
		require.Equal(t, i+1, e)
	}
}

func TestSnapshotIsACopy(t *testing.T) {
	l := New[int](-1)
	l.Add(1)
	entries, _ := l.Snapshot()
	entries[0] = 99
	l.Add(2)
	again, _ := l.Snapshot()
	assert.Equal(t, []int{1, 2}, again)
}

// Concurrent adds each get their own number, and the log lists them in the
// order of their numbers.
func TestConcurrentAdds(t *testing.T) {
	l := New[int](-1)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 500 {
				n := l.Add(0)
				l.Update(n, func(e *int) { *e = n })
			}
		})
	}
	wg.Wait()
	entries, _ := l.Snapshot()
	require.Len(t, entries, 4000)
	for i, e := range entries {
		require.Equal(t, i+1, e)
	}
}
