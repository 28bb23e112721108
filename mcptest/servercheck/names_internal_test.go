package servercheck

import (
	"strings"
	"testing"
)

func TestValidToolName(t *testing.T) {
	for name, want := range map[string]bool{
		"echo":                   true,
		"get_weather.v2-beta":    true,
		"A":                      true,
		strings.Repeat("x", 128): true,
		"":                       false,
		strings.Repeat("x", 129): false,
		"no spaces please":       false,
		"slash/name":             false,
		"ünïcode":                false,
		"tab\tname":              false,
		"colon:name":             false,
	} {
		if got := validToolName(name); got != want {
			t.Errorf("validToolName(%q) = %v, want %v", name, got, want)
		}
	}
}
