package tasks

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcptestkit/mcptestkit/mcpgo"
)

// SectionTime is how long render_report takes for one section.
const SectionTime = 100 * time.Millisecond

// MaxSections bounds the sections of a report.
const MaxSections = 5

// New returns the Reports server: render_report, which runs only as a task,
// and word_count, which runs either way. It declares the tasks capability
// (listing, cancelling, tools/call) and installs the crash guard,
// mcpgo.Guard.
func New(logger *slog.Logger) *server.MCPServer {
	s := server.NewMCPServer("Reports", "v1.0.0",
		server.WithTaskCapabilities(true, true, true),
		server.WithToolCapabilities(false),
		server.WithInputSchemaValidation(), // plain calls only: render_report validates itself
		mcpgo.Guard(logger))
	s.AddTaskTool(mcp.NewTool("render_report",
		mcp.WithDescription("Render a report, one section at a time. It takes a while: call it as a task."),
		mcp.WithTaskSupport(mcp.TaskSupportRequired),
		mcp.WithString("title", mcp.Required(), mcp.Description("the report's title")),
		mcp.WithNumber("sections", mcp.Description("how many sections (default 3)"), mcp.Min(1), mcp.Max(MaxSections)),
	), renderReport)
	s.AddTool(mcp.NewTool("word_count",
		mcp.WithDescription("Count the words of a text."),
		mcp.WithTaskSupport(mcp.TaskSupportOptional),
		mcp.WithString("text", mcp.Required(), mcp.Description("the text")),
	), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(fmt.Sprintf("%d words", len(strings.Fields(req.GetString("text", ""))))), nil
	})
	return s
}

// renderReport is the task handler of render_report. It does not watch
// ctx: mcp-go v1.2.1 ends it once the tools/call that created the task is
// answered (see the package documentation).
func renderReport(_ context.Context, req mcp.CallToolRequest) (*mcp.CreateTaskResult, error) {
	args := req.GetArguments()
	title, _ := args["title"].(string)
	if strings.TrimSpace(title) == "" {
		return toolError("A report needs a title."), nil
	}
	sections := 3
	if v, ok := args["sections"]; ok {
		n, isNum := v.(float64)
		if !isNum || n != float64(int(n)) || n < 1 || n > MaxSections {
			return toolError(fmt.Sprintf("sections must be a whole number from 1 to %d, not %v.", MaxSections, v)), nil
		}
		sections = int(n)
	}
	for range sections {
		time.Sleep(SectionTime)
	}
	return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent(fmt.Sprintf("Report %q: %d sections.", title, sections))}}, nil
}

// toolError is a failed tool's result, in a task: the model reads it.
func toolError(msg string) *mcp.CreateTaskResult {
	return &mcp.CreateTaskResult{Content: []mcp.Content{mcp.NewTextContent(msg)}, IsError: true}
}
