package oauth

import (
	"errors"
	"fmt"
)

// ErrResourceMismatch is returned (wrapped) when a server's protected
// resource metadata names a resource that is not the server being called:
// the client refuses to authorize, since a token for the named resource
// would be handed to the wrong party.
var ErrResourceMismatch = errors.New("oauth: protected resource metadata names a different resource")

// ErrIssuerMismatch is returned (wrapped) when authorization server metadata,
// or an authorization response's iss parameter (RFC 9207), names a different
// issuer than the one the client is talking to (a mix-up attack defence).
var ErrIssuerMismatch = errors.New("oauth: authorization server issuer mismatch")

// Error is an OAuth error response from an authorization server
// (RFC 6749 §5.2 for the token endpoint, §4.1.2.1 for the authorization
// endpoint's redirect).
type Error struct {
	// Endpoint is the URL that answered with the error.
	Endpoint string
	// Status is the HTTP status of the response; 0 for a redirect.
	Status int
	// Code is the "error" value, e.g. "invalid_grant" or "access_denied".
	Code string
	// Description is "error_description", if the server sent one.
	Description string
}

// Error formats the endpoint, status, code and description.
func (e *Error) Error() string {
	s := fmt.Sprintf("oauth: %s: %s", e.Endpoint, e.Code)
	if e.Status != 0 {
		s = fmt.Sprintf("oauth: %s: status %d: %s", e.Endpoint, e.Status, e.Code)
	}
	if e.Description != "" {
		s += ": " + e.Description
	}
	return s
}
