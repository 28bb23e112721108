// Package contract writes what the crash guards of gosdk and
// mcpgo share, so that both SDKs give a server the same error
// contract: the texts a client sees after a crash, and the log records
// (messages and keys from package guard).
//
// It knows no SDK: each guard extracts the method and the tool, resource or
// prompt name from its own SDK's request and calls in here.
package contract
