package main

import "strings"

// overrides corrects the reading of who a sentence binds where its subject
// is not named in it: a sentence holding the text of an entry is kept
// (true) or left out (false) whatever its words say.
var overrides = []struct {
	contains string
	keep     bool
	why      string
}{
	{"The key words \"MUST\"", false, "the RFC 2119 boilerplate"},
	{"This SHOULD be the latest version supported by the client.", false, "the client's initialize request"},
	{"Clients or proxies that aggregate tools", false, "clients and proxies"},
	{"MUST be different between the initial request and the retry", false, "the client's retry of an input_required request"},
	{"They MUST NOT be used for any other request that the client may be sending", false, "the client's retry of an input_required request"},
	{"Model MUST", false, "sampling's toolChoice binds the model behind the client"},
	{"Implementations that do choose to poll MUST apply jitter and backoff.", false, "a client that polls a cached result"},
	{"the response SHOULD be considered immediately stale", false, "the client's cache"},
	{"Caches MUST NOT be shared across authorization contexts", false, "the client's cache"},
	{"Don't make any determination based on cursor value", false, "the client reading a cursor"},
	{"Progress tokens MUST be a string or integer value", false, "the requesting side chooses the token"},
	{"SHOULD NOT be relied upon for disambiguation", false, "whoever aggregates several servers' tools"},
	{"The SSE stream SHOULD eventually include a JSON-RPC response", true, "the server's stream (its subject is in the sentence before)"},
}

func override(s sentence) (keep, found bool) {
	for _, o := range overrides {
		if strings.Contains(s.text, o.contains) {
			return o.keep, true
		}
	}
	return false, false
}
