package sdk

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWithFrom(t *testing.T) {
	t.Parallel()
	assert.Empty(t, From(t.Context()))
	assert.Equal(t, t.Context(), With(t.Context(), ""))
	assert.Equal(t, "go-sdk v1.4.0", From(With(t.Context(), "go-sdk v1.4.0")))
}

func TestBefore(t *testing.T) {
	t.Parallel()
	for release, want := range map[string]bool{
		"go-sdk v1.2.0":          true,
		"go-sdk v1.6.1":          true,
		"go-sdk v0.9.0":          true,
		"go-sdk v1.7.0":          false,
		"go-sdk v1.7.0-pre.1":    false,
		"go-sdk v1.8.0":          false,
		"go-sdk v2.0.0":          false,
		"go-sdk v1.10.0":         false,
		"go-sdk":                 false, // release not known
		"go-sdk devel":           false,
		"mcp-go v0.46.0":         false, // another SDK
		"":                       false,
		"go-sdk v1.6.0+incompat": true,
	} {
		assert.Equal(t, want, Before(release, "go-sdk", "v1.7.0"), release)
	}
}
