// Package jsonrpc holds the JSON-RPC 2.0 message model that every part of
// mcptestkit speaks: one Message type for requests, notifications and
// responses, request ids that keep their wire form, and the error object.
//
// A message is decoded once, by its receiver, with [Decode], and encoded once,
// by its sender, with [Encode]. Params and results stay raw JSON so that the
// layer that knows their shape decodes them, and nothing is parsed twice.
package jsonrpc
