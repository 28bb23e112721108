package oauth_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/mcptestkit/mcptestkit/client/oauth"
)

// exampleServer is a protected MCP endpoint that is also its own
// authorization server, auto-approving every authorization request.
func exampleServer() *httptest.Server {
	mux := http.NewServeMux()
	var srv *httptest.Server
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{
			"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /authorize", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.FormValue("redirect_uri")+"?code=c0de&state="+r.FormValue("state"), http.StatusFound)
	})
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"access_token": "t0ken", "token_type": "Bearer"})
	})
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`)
	})
	srv = httptest.NewServer(mux)
	return srv
}

func Example() {
	srv := exampleServer()
	defer srv.Close()

	tr, err := oauth.New(oauth.Config{
		ClientID: "my-client", // pre-registered; leave empty for CIMD or dynamic registration
		Grant: &oauth.AuthorizationCode{
			RedirectURL: "http://127.0.0.1:8085/callback",
			// A real client opens a browser and serves the redirect URI here.
			Authorize: oauth.AutoApprove(nil),
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	// Hand tr.Client() to the streamable HTTP transport; any request works the same way.
	resp, err := tr.Client().Post(srv.URL+"/mcp", "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	tok, _ := tr.Token()
	fmt.Println(resp.StatusCode, string(body))
	fmt.Println("token:", tok.AccessToken)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}
	// token: t0ken
}
