// Package monitor is the protocol monitor: one stateful rule engine fed
// every message of a connection, in both directions and in order, that
// knows the session (era, negotiated version, capabilities on both sides,
// the log level set, progress tokens given, requests in flight and their
// ids, listings and cursors) and finds where the server breaks a rule of
// the specification (see [Rules]).
//
// A rule fires only on evidence in the messages themselves: nothing it
// judges depends on timing, and a message that never came is no finding.
// It sends nothing; [Wrap] taps a transport without changing what flows.
package monitor
