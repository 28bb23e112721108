module github.com/mcptestkit/mcptestkit

go 1.25

require (
	github.com/dlclark/regexp2 v1.11.0
	github.com/go-jose/go-jose/v4 v4.0.1
	github.com/google/go-cmp v0.5.9
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/stretchr/testify v1.8.2
	go.uber.org/goleak v1.3.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	golang.org/x/crypto v0.19.0 // indirect
	golang.org/x/text v0.14.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
