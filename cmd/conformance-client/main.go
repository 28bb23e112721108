// Command conformance-client is the program the official MCP conformance suite drives
// (conformance/run.sh). This first version only proves the harness end to end: it knows no
// scenario yet and fails every one of them.
package main

import (
	"fmt"
	"os"
)

func main() {
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client <server-url>")
		os.Exit(2)
	}
	fmt.Fprintf(os.Stderr, "conformance-client: scenario %q against %s: not implemented yet\n", scenario, os.Args[len(os.Args)-1])
	os.Exit(1)
}
