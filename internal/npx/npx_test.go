package npx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestUnreachable(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() != "/@modelcontextprotocol%2fserver-everything" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	if why := unreachable(t.Context(), srv.URL+"/", "@modelcontextprotocol/server-everything@2026.8.31"); why != "" {
		t.Errorf("a registry that has the package: %q", why)
	}
	if why := unreachable(t.Context(), srv.URL+"/", "@modelcontextprotocol/server-nothing@1.0.0"); !strings.Contains(why, "has no @modelcontextprotocol/server-nothing (HTTP 404") {
		t.Errorf("a registry without it: %q", why)
	}
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	if why := unreachable(t.Context(), closed.URL+"/", "x@1"); !strings.Contains(why, "is out of reach") {
		t.Errorf("a registry that does not answer: %q", why)
	}
}
