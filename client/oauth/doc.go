// Package oauth is an OAuth 2.1 client for MCP servers behind the MCP
// authorization spec (2025-03-26 through 2025-11-25 and the draft), as an
// [http.RoundTripper] for the streamable HTTP transport.
//
// A [Transport] sends MCP requests with a bearer token and answers the
// server's challenges itself: a 401 starts discovery (the WWW-Authenticate
// challenge, Protected Resource Metadata per RFC 9728 with its well-known
// fallbacks, Authorization Server Metadata per RFC 8414 or OpenID Connect
// discovery, or the 2025-03-26 default endpoints), client identification
// (pre-registered, client ID metadata document, or dynamic registration per
// RFC 7591) and a token request with the configured [Grant]; a 403
// insufficient_scope steps up to the added scopes; expiring tokens are
// refreshed. The RFC 8707 resource parameter always names the server, and a
// server whose metadata names another resource is refused.
//
// Grants: [AuthorizationCode] (PKCE S256, with a pluggable [AuthorizeFunc]
// for the browser step; [AutoApprove] for servers that approve without a
// user), [ClientCredentials] (client_secret_basic, client_secret_post or
// private_key_jwt), [IdentityAssertion] (SEP-990 enterprise-managed
// authorization: ID token → ID-JAG → access token) and [JWTBearer] (a JWT
// the client holds, such as a workload identity token).
//
// With [Config.DPoPKey], tokens are bound to a key (DPoP, RFC 9449): every
// request carries a fresh proof, and a server's nonce is honoured. A 401 to
// a token sends the client back to the protected resource metadata, so a
// server that moved to another authorization server is followed there
// (SEP-2352). An authorization response's iss is compared byte for byte
// (RFC 9207, SEP-2468).
//
// JWTs (private_key_jwt assertions, DPoP proofs) are signed by go-jose;
// nothing else outside the standard library is used.
package oauth
