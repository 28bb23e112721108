// Command stdioserver is the subprocess the stdio transport's tests start.
// By default it serves a small go-sdk MCP server on stdin/stdout. The
// STDIOSERVER_MODE environment variable picks a misbehaviour instead:
//
//	exit        write a few lines on stderr and exit with status 3
//	garbage     answer the first line with a non-JSON line on stdout
//	oversized   answer the first line with a 64 KiB line on stdout
//	stubborn    ignore stdin EOF and SIGTERM; only SIGKILL ends it
//	spawn       start a grandchild that keeps stdout open, then serve
//	echo        copy each stdin line to stdout (framing tests)
//	chatty      write STDIOSERVER_LINES lines on stderr, then serve
//	orphan      start a grandchild that keeps stdout open, read one line,
//	            exit with status 4
//	nostdin     close stdin, say so on stderr, exit with status 3 soon after
//	flood       answer the first line with a 100 MB line on stdout, then
//	            exit with status 0 when stdin closes
package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	switch mode := os.Getenv("STDIOSERVER_MODE"); mode {
	case "":
		serve()
	case "exit":
		fmt.Fprintln(os.Stderr, "stdioserver: loading config")
		fmt.Fprintln(os.Stderr, "stdioserver: fatal: config file /nonexistent/config.toml not found")
		os.Exit(3)
	case "garbage":
		readLine()
		fmt.Fprintln(os.Stderr, "stdioserver: printing a banner on stdout")
		fmt.Println("Server listening on stdio, press Ctrl-C to quit")
		block()
	case "oversized":
		readLine()
		fmt.Fprintln(os.Stderr, "stdioserver: about to write a huge line")
		fmt.Printf("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"pad\":%q}}\n", strings.Repeat("a", 64<<10))
		block()
	case "stubborn":
		signal.Ignore(syscall.SIGTERM)
		fmt.Fprintln(os.Stderr, "stdioserver: ignoring SIGTERM")
		select {}
	case "spawn":
		// The grandchild inherits stdout and stderr and outlives a plain
		// kill of its parent; only a process-group kill reaches it.
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "STDIOSERVER_MODE=stubborn")
		child.Stdout, child.Stderr = os.Stdout, os.Stderr
		if err := child.Start(); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "stdioserver: grandchild pid %d\n", child.Process.Pid)
		serve()
	case "echo":
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fmt.Printf("%s\n", sc.Bytes())
		}
	case "chatty":
		n, _ := strconv.Atoi(os.Getenv("STDIOSERVER_LINES"))
		for i := range n {
			fmt.Fprintf(os.Stderr, "stdioserver: log line %d\n", i)
		}
		serve()
	case "orphan":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "STDIOSERVER_MODE=stubborn")
		child.Stdout, child.Stderr = os.Stdout, nil
		if err := child.Start(); err != nil {
			log.Fatal(err)
		}
		fmt.Fprintf(os.Stderr, "stdioserver: grandchild pid %d holds stdout\n", child.Process.Pid)
		readLine()
		fmt.Fprintln(os.Stderr, "stdioserver: panic: out of cheese")
		os.Exit(4)
	case "nostdin":
		os.Stdin.Close()
		fmt.Fprintln(os.Stderr, "stdioserver: closed stdin")
		time.Sleep(200 * time.Millisecond) // a write to stdin now fails before the exit is seen
		os.Exit(3)
	case "flood":
		readLine()
		fmt.Fprintln(os.Stderr, "stdioserver: writing a 100 MB line")
		w := bufio.NewWriterSize(os.Stdout, 1<<20)
		w.WriteString(`{"jsonrpc":"2.0","method":"x","params":{"pad":"`)
		chunk := strings.Repeat("a", 1<<20)
		for range 100 {
			w.WriteString(chunk)
		}
		w.WriteString("\"}}\n")
		w.Flush()
		block()
	default:
		log.Fatalf("stdioserver: unknown STDIOSERVER_MODE %q", mode)
	}
}

func readLine() {
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
}

// block waits for stdin to close, like a server that has stopped answering
// but still exits cleanly when its client goes away.
func block() {
	_, _ = bufio.NewReader(os.Stdin).ReadString(0)
}

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type echoOut struct {
	Echo string `json:"echo"`
}

func serve() {
	s := mcp.NewServer(&mcp.Implementation{Name: "stdioserver", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo text back."},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			fmt.Fprintf(os.Stderr, "stdioserver: echo %q\n", in.Text)
			return nil, echoOut{Echo: in.Text}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintf(os.Stderr, "stdioserver: %v\n", err)
	}
	fmt.Fprintln(os.Stderr, "stdioserver: stdin closed, bye")
}
