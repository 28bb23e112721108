// The command line and the conformance client. No replace directives here: `go install
// .../cmd/mcptestkit@version` refuses a module that has them; in the repository go.work
// resolves the other modules of mcptestkit.
module github.com/mcptestkit/mcptestkit/cmd

go 1.25.5

require (
	github.com/andybalholm/brotli v1.1.0
	github.com/klauspost/compress v1.17.11
	github.com/mcptestkit/mcptestkit v0.1.0
	github.com/mcptestkit/mcptestkit/examples v0.1.0
	github.com/mcptestkit/mcptestkit/gosdk v0.1.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/owenrumney/go-sarif/v2 v2.3.3
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	github.com/stretchr/testify v1.12.1
	github.com/tiktoken-go/tokenizer v0.7.0
	go.uber.org/goleak v1.3.0
	go.yaml.in/yaml/v3 v3.0.5
)

require (
	github.com/dlclark/regexp2 v1.11.5 // indirect
	github.com/go-jose/go-jose/v4 v4.0.1 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/crypto v0.19.0 // indirect
	golang.org/x/oauth2 v0.35.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.41.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
