module github.com/mcptestkit/mcptestkit/integration

go 1.25.5

require (
	github.com/mark3labs/mcp-go v1.2.1
	github.com/mcptestkit/mcptestkit v0.1.0
	github.com/mcptestkit/mcptestkit/examples v0.1.0
	github.com/mcptestkit/mcptestkit/gosdk v0.1.0
	github.com/mcptestkit/mcptestkit/mcpgo v0.1.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/dlclark/regexp2 v1.11.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.22.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)

replace github.com/mcptestkit/mcptestkit => ../

replace github.com/mcptestkit/mcptestkit/gosdk => ../gosdk

replace github.com/mcptestkit/mcptestkit/mcpgo => ../mcpgo

replace github.com/mcptestkit/mcptestkit/examples => ../examples

replace github.com/mcptestkit/mcptestkit/internal/cassette => ../internal/cassette

replace github.com/mcptestkit/mcptestkit/mcptest/cassette => ../mcptest/cassette
