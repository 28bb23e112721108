package client

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func eventOptions(events chan<- string) *Options {
	return &Options{
		OnToolListChanged:     func() { events <- "tools" },
		OnPromptListChanged:   func() { events <- "prompts" },
		OnResourceListChanged: func() { events <- "resources" },
		OnResourceUpdated:     func(uri string) { events <- "updated " + uri },
	}
}

// expectEvent waits for the next event; the fixtures' servers send them
// promptly (go-sdk after a 10ms debounce).
func expectEvent(t *testing.T, events <-chan string, want string) {
	t.Helper()
	select {
	case got := <-events:
		require.Equal(t, want, got)
	case <-t.Context().Done():
		t.Fatalf("no %q event", want)
	}
}
