//go:build unix

package transport_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"

	"github.com/mcptestkit/mcptestkit/client"
	"github.com/mcptestkit/mcptestkit/client/transport"
)

// Run a server as a subprocess. Here it is a small server from this
// package's testdata, started with go run; usually it is your server's
// binary.
func ExampleCommand() {
	cmd := exec.Command("go", "run", "./testdata/stdioserver")
	tr, err := transport.Command(cmd, transport.WithStderr(os.Stderr))
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	c, err := client.Connect(ctx, tr, &client.Options{ProtocolVersion: "2025-11-25"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := c.CallTool(ctx, "echo", map[string]any{"text": "over stdio"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(c.ServerInfo().Name, res.StructuredContent != nil)

	// Closing the client closes the transport: stdin is closed and the
	// process is waited for (and signalled, should it linger).
	if err := c.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("exited:", cmd.ProcessState.Exited())
	// Output:
	// stdioserver true
	// exited: true
}

// A server that dies is reported with its exit status and the end of its
// stderr, which usually says why.
func ExampleProcessError() {
	cmd := exec.Command("sh", "-c", "echo 'fatal: no API key in $MY_API_KEY' >&2; exit 2")
	tr, err := transport.Command(cmd)
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()

	_, err = tr.Receive(context.Background())
	var pe *transport.ProcessError
	if errors.As(err, &pe) {
		fmt.Println(errors.Is(err, transport.ErrProcessExited), pe.State.ExitCode())
		fmt.Println(pe.Stderr)
	}
	// Output:
	// true 2
	// fatal: no API key in $MY_API_KEY
}
