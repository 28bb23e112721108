// Package toolschema compiles the JSON Schemas of MCP tools the one way the
// module reads them: 2020-12 unless $schema names another draft, offline.
// mcptest's assertions and servercheck's checks share it.
package toolschema

import (
	"bytes"
	"fmt"
	"net/url"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Compile compiles raw, named name in errors. A schema that refers to
// another document by URL is an error: nothing is fetched from the network
// or read from the disk.
func Compile(raw []byte, name string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	loc := "mcptestkit:///" + url.PathEscape(name)
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	return c.Compile(loc)
}

type refuseLoader struct{}

func (refuseLoader) Load(u string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s; external schemas are not loaded (schemas are checked offline)", u)
}
