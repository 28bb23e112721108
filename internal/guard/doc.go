// Package guard holds what the crash guards of mcptest/gosdk and
// mcptest/mcpgo share, so that both SDKs give a server the same error
// contract: the log messages and attribute keys users assert on, the texts a
// client sees after a crash, and the functions that write the records.
//
// It knows no SDK: each guard extracts the method and the tool, resource or
// prompt name from its own SDK's request and calls in here.
package guard
