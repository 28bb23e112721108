package guard

// The messages of the guard's log records. A panic is one ERROR record, a
// failure the handler reported itself one INFO record. They are API: change
// them only with a note in the release notes.
const (
	MsgToolPanic     = "tool handler panicked"     // ERROR: a tool handler panicked
	MsgResourcePanic = "resource handler panicked" // ERROR: reading a resource panicked
	MsgPromptPanic   = "prompt handler panicked"   // ERROR: a prompt handler panicked
	MsgPanic         = "handler panicked"          // ERROR: another handler panicked
	MsgToolError     = "tool returned an error"    // INFO: a tool returned an error result
	MsgRequestFailed = "request failed"            // INFO: a request ended in a JSON-RPC error
)

// The attribute keys of the guard's log records.
const (
	MethodKey = "method" // the JSON-RPC method, on every record
	ToolKey   = "tool"   // tools/call: the tool name
	URIKey    = "uri"    // resources/read: the resource URI
	PromptKey = "prompt" // prompts/get: the prompt name
	PanicKey  = "panic"  // the value passed to panic, as it was
	StackKey  = "stack"  // the panicking goroutine's stack, a string
	ErrorKey  = "error"  // the error text
	CodeKey   = "code"   // the JSON-RPC error code the client gets, an int64
)

// An Option changes what a guard does; pass it to gosdk.Guard or
// mcpgo.Guard.
type Option int

// ToolErrorsAsResults makes a Go error that a tool handler returns an error
// result (isError: true, the error's text as content), which the model
// reads, instead of a JSON-RPC error, which it never sees; it is logged as
// [MsgToolError]. With go-sdk only raw handlers (added with Server.AddTool)
// need it: a typed tool's error already is a result. With mcp-go every tool
// handler does (mcp-go#157). An error that says it is a protocol error (a
// go-sdk *jsonrpc.Error, an mcp-go URL elicitation) stays one.
const ToolErrorsAsResults Option = 1
