package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcptestkit/mcptestkit/memtransport"
)

// taskServer is a scripted server with task tools and no SDK, in both eras:
// initialize starts a 2025-11-25 session (or an older one, without tasks, if asked) with the core tasks (the task
// param, tasks/get, tasks/result, tasks/list, tasks/cancel,
// notifications/tasks/status), and server/discover a 2026-07-28 one with the
// io.modelcontextprotocol/tasks extension (a task for any call of count or
// echo that declares it, tasks/get with the outcome, tasks/cancel as an
// acknowledgement). Its tools:
//
//	count  required: counts to n, a step every ms milliseconds (default
//	       100) on a timer (the bubble's clock in synctest.Test); n < 0
//	       fails the task with -32603, n not a number with an isError result
//	       (a failed task at 2025-11-25, a completed one at 2026-07-28)
//	echo   optional: echoes text; fail makes an isError result
//	plain  no taskSupport: a plain tool
//
// Tasks suggest a poll interval of pollMs milliseconds (none when 0).
type taskServer struct {
	pollMs int
	// contradict makes tasks/result of a completed task a JSON-RPC error
	// (-32603): a defect the checks must find.
	contradict bool
	// overwrite makes tasks/cancel of an ended task answer it as cancelled
	// and overwrite its status: a defect the checks must find.
	overwrite bool
	// noTasks makes a 2025-11-25 server without tasks: no capability, the
	// task param ignored.
	noTasks bool
	// defect plants one defect the checks must find (see the switch
	// cases that read it).
	defect string

	mu    sync.Mutex
	next  int
	tasks map[string]*scriptedTask
	// listens are the 2026-07-28 subscriptions to task status: the listen
	// request's id (the subscription id) by task id.
	listens map[string][]string
}

type scriptedTask struct {
	id, status, message string
	modern              bool
	result              string // the result's JSON, once completed
	code                int64  // the error, once failed
	errMessage          string
	done                chan struct{}
	stop                context.CancelFunc
	// initial is the task as created, what the call that made it answers,
	// taken before it starts so that the answer never races its end.
	initial string
}

func newTaskServer(pollMs int) *taskServer {
	return &taskServer{pollMs: pollMs, tasks: map[string]*scriptedTask{}}
}

type taskRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Name            string          `json:"name"`
		Arguments       map[string]any  `json:"arguments"`
		Task            json.RawMessage `json:"task"`
		TaskID          string          `json:"taskId"`
		Cursor          *string         `json:"cursor"`
		RequestID       json.RawMessage `json:"requestId"`
		Notifications   struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
		Meta struct {
			Related struct {
				TaskID string `json:"taskId"`
			} `json:"io.modelcontextprotocol/related-task"`
			Version string `json:"io.modelcontextprotocol/protocolVersion"`
			Caps    struct {
				Extensions map[string]json.RawMessage `json:"extensions"`
			} `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	} `json:"params"`
}

const taskTools = `[` +
	`{"name":"count","description":"Count to n.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":5},"ms":{"type":"integer","minimum":1,"maximum":50}},"required":["n"]},"execution":{"taskSupport":"required"}},` +
	`{"name":"echo","description":"Echo text.","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"fail":{"type":"boolean"}}},"execution":{"taskSupport":"optional"}},` +
	`{"name":"plain","description":"A plain tool.","inputSchema":{"type":"object"}}]`

func (s *taskServer) Serve(ctx context.Context, conn *memtransport.Conn) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	send := func(msg string) { _ = conn.Send(ctx, []byte(msg)) }
	for {
		data, err := conn.Receive(ctx)
		if err != nil {
			return nil
		}
		var req taskRequest
		if json.Unmarshal(data, &req) != nil {
			send(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
			continue
		}
		if req.ID == nil {
			if req.Method == "notifications/cancelled" {
				s.unlisten(string(req.Params.RequestID))
			}
			continue
		}
		modern := req.Params.Meta.Version != ""
		_, declared := req.Params.Meta.Caps.Extensions["io.modelcontextprotocol/tasks"]
		answer := func(body string) {
			if modern && body[1] == 'r' && !strings.Contains(body[:min(30, len(body))], `"resultType"`) { // a result: stamp resultType
				body = body[:10] + `"resultType":"complete",` + body[10:]
				if body[len(body)-2] == ',' {
					body = body[:len(body)-2] + "}"
				}
			}
			send(`{"jsonrpc":"2.0","id":` + string(req.ID) + `,` + body + `}`)
		}
		fail := func(code int64, msg string) {
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`, req.ID, code, msg))
		}
		switch req.Method {
		case "initialize":
			v, caps := req.Params.ProtocolVersion, `"tools":{}`
			if v >= "2025-11-25" || v < "2024" {
				v = "2025-11-25"
				if !s.noTasks {
					caps += `,"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}`
				}
			}
			answer(`"result":{"protocolVersion":"` + v + `","capabilities":{` + caps + `},"serverInfo":{"name":"tasks","version":"v0"}}`)
		case "server/discover":
			answer(`"result":{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{},"extensions":{"io.modelcontextprotocol/tasks":{}}},"ttlMs":0,"cacheScope":"public"}`)
		case "ping":
			answer(`"result":{}`)
		case "tools/list":
			if modern {
				answer(`"result":{"tools":` + taskTools + `,"ttlMs":0,"cacheScope":"public"}`)
				break
			}
			answer(`"result":{"tools":` + taskTools + `}`)
		case "tools/call":
			asTask := modern && (declared || s.defect == "task-without-extension") ||
				!modern && len(req.Params.Task) > 0 && (!s.noTasks || s.defect == "task-param-honoured")
			name, args := req.Params.Name, req.Params.Arguments
			switch {
			case name == "count" && !asTask && modern:
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32021,"message":"tool count runs as a task",`+
					`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, req.ID))
			case name == "count" && !asTask:
				fail(-32601, "tool count requires a task")
			case name == "plain" && asTask && !modern && s.defect != "forbidden-runs":
				fail(-32601, "tool plain does not run as a task")
			case name == "plain" || name == "echo" && !asTask:
				answer(`"result":` + echo(name, args))
			case name == "count" || name == "echo":
				t := s.start(ctx, &wg, modern, name, args, send)
				answer(`"result":` + s.created(t))
			default:
				fail(-32602, "unknown tool "+name)
			}
		case "tasks/get", "tasks/result", "tasks/cancel", "tasks/update":
			if modern && !declared && s.defect != "methods-without-extension" {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32021,"message":"declare the tasks extension",`+
					`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, req.ID))
				break
			}
			id := req.Params.TaskID
			if s.defect == "related-task-wins" && req.Params.Meta.Related.TaskID != "" {
				id = req.Params.Meta.Related.TaskID
			}
			t := s.task(id)
			if t == nil && s.defect == "unknown-acknowledged" && (req.Method == "tasks/cancel" || req.Method == "tasks/update") {
				answer(`"result":{}`)
				break
			}
			if t == nil {
				fail(-32602, "task not found: "+req.Params.TaskID)
				break
			}
			switch req.Method {
			case "tasks/get":
				answer(`"result":` + s.state(t, true))
			case "tasks/update":
				answer(`"result":{}`)
			case "tasks/result":
				if modern {
					fail(-32601, "tasks/result is not in the tasks extension")
					break
				}
				if s.defect == "result-early" {
					answer(`"result":{"content":[{"type":"text","text":"not yet"}]}`)
					break
				}
				wg.Go(func() {
					select {
					case <-t.done:
					case <-ctx.Done():
						return
					}
					s.mu.Lock()
					defer s.mu.Unlock()
					related := `"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"` + t.id + `"}}`
					switch t.status {
					case "completed":
						if s.contradict {
							fail(-32603, "the result was lost")
							break
						}
						answer(`"result":` + t.result[:len(t.result)-1] + `,` + related + `}`)
					case "failed":
						if t.code == 0 {
							answer(`"result":` + t.result[:len(t.result)-1] + `,` + related + `}`)
							break
						}
						fail(t.code, t.errMessage)
					default:
						fail(-32602, "task "+t.id+" was cancelled")
					}
				})
			case "tasks/cancel":
				if !s.cancel(t) && !modern {
					fail(-32602, "task "+t.id+" has ended")
					break
				}
				if modern {
					answer(`"result":{}`)
					break
				}
				answer(`"result":` + s.state(t, false))
			}
		case "subscriptions/listen":
			ids := req.Params.Notifications.TaskIDs
			if len(ids) > 0 && !declared && s.defect != "listen-without-extension" {
				send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32021,"message":"declare the tasks extension",`+
					`"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}`, req.ID))
				break
			}
			s.listen(string(req.ID), ids, send)
		case "tasks/list":
			if s.defect == "list-first-page" {
				answer(`"result":{"tasks":[` + s.state(s.task("task-1"), false) + `]}`)
				break
			}
			if modern {
				fail(-32601, "tasks/list is not in the tasks extension")
				break
			}
			page, ok := s.list(req.Params.Cursor)
			if !ok {
				fail(-32602, "invalid cursor")
				break
			}
			answer(`"result":` + page)
		default:
			fail(-32601, "Method not found")
		}
	}
}

// echo is the plain result of echo (or plain).
func echo(name string, args map[string]any) string {
	if name == "plain" {
		return `{"content":[{"type":"text","text":"plain"}]}`
	}
	text, _ := args["text"].(string)
	if fail, _ := args["fail"].(bool); fail {
		return fmt.Sprintf(`{"content":[{"type":"text","text":%q}],"isError":true}`, "echo failed: "+text)
	}
	return fmt.Sprintf(`{"content":[{"type":"text","text":%q}]}`, text)
}

// start makes a task of a call and runs it on a goroutine of wg.
func (s *taskServer) start(ctx context.Context, wg *sync.WaitGroup, modern bool, name string, args map[string]any, send func(string)) *scriptedTask {
	s.mu.Lock()
	s.next++
	runCtx, stop := context.WithCancel(ctx)
	n := s.next
	if s.defect == "same-ids" {
		n = (n + 1) / 2 // two tasks a id
	}
	t := &scriptedTask{id: "task-" + strconv.Itoa(n), status: "working", modern: modern, done: make(chan struct{}), stop: stop}
	s.tasks[t.id] = t
	t.initial = s.stateLocked(t, false)
	if s.defect == "created-completed" {
		t.initial = strings.Replace(t.initial, `"status":"working"`, `"status":"completed"`, 1)
	}
	s.mu.Unlock()
	wg.Go(func() {
		defer stop()
		n, isNum := args["n"].(float64)
		ms, _ := args["ms"].(float64)
		if ms <= 0 {
			ms = 100
		}
		if s.defect == "result-early" { // the task runs until cancelled
			<-runCtx.Done()
			return
		}
		result, code, msg := echo(name, args), int64(0), ""
		toolFailed := name == "echo" && strings.Contains(result, `"isError":true`)
		if name == "count" && !isNum {
			result, toolFailed = `{"content":[{"type":"text","text":"n must be a number"}],"isError":true}`, true
		} else if name == "count" {
			result = fmt.Sprintf(`{"content":[{"type":"text","text":"counted to %d"}]}`, int(n))
			if n < 0 {
				code, msg = -32603, fmt.Sprintf("cannot count to %d", int(n))
			}
			for range max(int(n), 0) {
				timer := time.NewTimer(time.Duration(ms) * time.Millisecond)
				select {
				case <-timer.C:
				case <-runCtx.Done():
					timer.Stop()
					return
				}
			}
		}
		s.mu.Lock()
		if t.status != "working" {
			s.mu.Unlock()
			return
		}
		switch {
		case code != 0:
			t.status, t.code, t.errMessage, t.message = "failed", code, msg, msg
		case toolFailed && !modern: // 2025-11-25: a tool error fails the task
			t.status, t.result = "failed", result
			if s.defect != "no-status-message" {
				t.message = "the tool reported an error"
			}
		default: // 2026-07-28: failed is for JSON-RPC errors only
			t.status, t.result = "completed", result
		}
		close(t.done)
		// Sent under the lock: a tasks/get that sees the end answers after
		// the notification of it.
		defer s.mu.Unlock()
		if !modern {
			send(`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":` + s.stateLocked(t, false) + `}`)
			return
		}
		for _, sub := range s.listens[t.id] {
			send(s.taskNote(sub, t))
		}
	})
	return t
}

// listen subscribes sub (a listen request's id) to the tasks' status and
// acknowledges it, with the state of each task that has ended: one still
// working is notified when it ends.
func (s *taskServer) listen(sub string, ids []string, send func(string)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listens == nil {
		s.listens = map[string][]string{}
	}
	for _, id := range ids {
		s.listens[id] = append(s.listens[id], sub)
	}
	b, _ := json.Marshal(ids)
	send(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` +
		sub + `},"notifications":{"taskIds":` + string(b) + `}}}`)
	if s.defect == "log-on-listen" {
		send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` +
			sub + `},"level":"info","data":"listening"}}`)
	}
	for _, id := range ids {
		if t := s.tasks[id]; t != nil && t.status != "working" {
			send(s.taskNote(sub, t))
		}
	}
}

// taskNote is the notifications/tasks of t for the subscription sub; s.mu
// is held.
func (s *taskServer) taskNote(sub string, t *scriptedTask) string {
	return `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` +
		sub + `},` + s.stateLocked(t, true)[1:] + `}`
}

// unlisten ends the subscription sub.
func (s *taskServer) unlisten(sub string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, subs := range s.listens {
		s.listens[id] = slices.DeleteFunc(subs, func(x string) bool { return x == sub })
	}
}

func (s *taskServer) task(id string) *scriptedTask {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tasks[id]
}

// cancel cancels t unless it has ended, and reports whether it did.
func (s *taskServer) cancel(t *scriptedTask) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.status != "working" {
		if s.overwrite {
			t.status, t.message = "cancelled", "cancelled by request"
		}
		return s.overwrite
	}
	t.status, t.message = "cancelled", "cancelled by request"
	t.stop()
	close(t.done)
	return true
}

func (s *taskServer) created(t *scriptedTask) string {
	st := t.initial
	if t.modern {
		return `{"resultType":"task",` + st[1:]
	}
	return `{"task":` + st + `}`
}

func (s *taskServer) state(t *scriptedTask, detailed bool) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stateLocked(t, detailed)
}

// stateLocked is t in its era's form; detailed adds the 2026-07-28 outcome.
func (s *taskServer) stateLocked(t *scriptedTask, detailed bool) string {
	b := fmt.Sprintf(`{"taskId":%q,"status":%q,"createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z"`, t.id, t.status)
	if t.message != "" {
		b += fmt.Sprintf(`,"statusMessage":%q`, t.message)
	}
	ttl, poll := `"ttl":null`, `"pollInterval"`
	if t.modern {
		ttl, poll = `"ttlMs":null`, `"pollIntervalMs"`
	}
	b += "," + ttl
	if s.pollMs > 0 {
		b += fmt.Sprintf(`,%s:%d`, poll, s.pollMs)
	}
	if detailed && t.modern {
		switch t.status {
		case "completed":
			b += `,"result":` + t.result
		case "failed":
			b += fmt.Sprintf(`,"error":{"code":%d,"message":%q}`, t.code, t.errMessage)
		}
	}
	return b + "}"
}

// list is one page of tasks/list: a task a page, in creation order; ok is
// false for a cursor it never gave.
func (s *taskServer) list(cursor *string) (page string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := 1
	if cursor != nil {
		var err error
		if i, err = strconv.Atoi(*cursor); err != nil || s.tasks["task-"+*cursor] == nil {
			return "", false
		}
	}
	t := s.tasks["task-"+strconv.Itoa(i)]
	if t == nil {
		return `{"tasks":[]}`, true
	}
	next := ""
	if s.tasks["task-"+strconv.Itoa(i+1)] != nil {
		next = fmt.Sprintf(`,"nextCursor":"%d"`, i+1)
	}
	return `{"tasks":[` + s.stateLocked(t, false) + `]` + next + `}`, true
}
