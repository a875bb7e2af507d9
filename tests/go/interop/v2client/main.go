// Command v2client is an ACP v2 client on the generated Go package, for the v2 interop tests
// (tests/go/test_interop_go_v2_client.py): `v2client <scenario> <agent program> [args...]` spawns
// the agent (acp.Spawn: its own process group, ended with the connection), runs one scenario
// through the session's view (v2.AgentPeer.Session) and prints one JSON line per observation,
// ending with {"event":"done"}; on a failure, one line on stderr and exit 1. The agent is
// expected to behave like tests/interop/node/ts_v2_agent.mjs or tests/interop/our_v2_agent.py
// (a word per chunk; "permission" asks first; "title" sends session_info_updates).
//
// Lines: {"event":"initialize",...InitializeResponse}, {"event":"session","sessionId"},
// {"event":"update",...SessionUpdate} for each update of the session as the client's own
// SessionUpdate sees it, {"event":"prompt","n","messageId"} or {"event":"error","method","n",
// "code"} for the n-th prompt's answer, {"event":"idle","n","stopReason"} when the view's Idle
// returns for it, {"event":"cancel_request","requestId"} for each $/cancel_request the agent
// sends, {"event":"sent","method"} for each notification the client sends, plus the scenario's:
//
//	prompt                     "hello big world" until idle; {"event":"view",...} what the view holds.
//	cancel                     a long prompt; after its 1st chunk a 2nd prompt (held by the agent);
//	                           after the 2nd chunk the view's Cancel (session/cancel).
//	interrupt                  a long prompt; after its 2nd chunk the ctx of an acp.Graceful Idle
//	                           ends: the view sends session/cancel and waits for the idle update.
//	permission_selected        "please ask permission"; the client selects the allow option.
//	permission_cancel_request  "please ask permission"; the client never answers; session/cancel
//	                           once asked: the agent withdraws the request ($/cancel_request) and
//	                           the SDK answers it {"event":"permission_answer","result"}.
//	close                      a long prompt; after 2 chunks session/close; {"event":"close_order",
//	                           "idle_before_close","stopReason"}: the view's state when it answered.
//	meta, untitled             "set title" ("set title untitled"); each session_info_update applied
//	                           with acp.ApplySessionInfoUpdate under v2.Behaviour's _meta policy:
//	                           {"event":"info","title":"absent"|"null"|"value"} per update, then
//	                           {"event":"meta","value"}, {"event":"title","value"},
//	                           {"event":"list",...ListSessionsResponse}.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
)

const timeout = 20 * time.Second

var long = func() string {
	words := make([]string, 60)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i+1)
	}
	return strings.Join(words, " ")
}()

// out writes the event lines, one at a time.
type out struct {
	mu sync.Mutex
}

func (o *out) emit(event string, fields map[string]any) {
	line := map[string]any{}
	for key, value := range fields {
		line[key] = value
	}
	line["event"] = event
	encoded, err := json.Marshal(line)
	if err != nil {
		encoded, _ = json.Marshal(map[string]any{"event": "problem", "message": err.Error()})
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, _ = os.Stdout.Write(append(encoded, '\n'))
}

// members is a value's JSON object as a map.
func members(value any) map[string]any {
	encoded, _ := json.Marshal(value)
	fields := map[string]any{}
	_ = json.Unmarshal(encoded, &fields)
	return fields
}

type client struct {
	v2.UnimplementedClient
	out      *out
	scenario string
	asked    chan struct{} // one per permission request

	mu   sync.Mutex
	info acp.SessionInfo // what the session_info_updates set, by v2's _meta policy
}

func (c *client) SessionUpdate(_ context.Context, params v2.UpdateSessionNotification) {
	c.out.emit("update", members(params.Update))
	if update, ok := params.Update.(v2.SessionUpdateSessionInfoUpdate); ok {
		title := "absent"
		if update.Title.IsNull() {
			title = "null"
		} else if _, ok := update.Title.Get(); ok {
			title = "value"
		}
		c.out.emit("info", map[string]any{"title": title})
		c.mu.Lock()
		if info, err := acp.ApplySessionInfoUpdate(c.info, update, acp.MetaPolicyOf(v2.Behaviour, "SessionInfoUpdate")); err == nil {
			c.info = info
		}
		c.mu.Unlock()
	}
}

func (c *client) SessionRequestPermission(ctx context.Context, params v2.RequestPermissionRequest) (v2.RequestPermissionResponse, error) {
	c.out.emit("permission_request", map[string]any{"sessionId": params.SessionID, "title": params.Title})
	c.asked <- struct{}{}
	if c.scenario == "permission_selected" {
		for _, option := range params.Options {
			if strings.HasPrefix(string(option.Kind), "allow") {
				c.out.emit("permission", map[string]any{"outcome": "selected", "optionId": option.OptionID})
				return v2.RequestPermissionResponse{Outcome: v2.RequestPermissionOutcomeSelected{OptionID: option.OptionID}}, nil
			}
		}
	}
	// The user never answers: the agent's $/cancel_request ends ctx, and the SDK answers the
	// edition's cancel outcome.
	<-ctx.Done()
	c.out.emit("permission", map[string]any{"cancelled_by_peer": errors.Is(context.Cause(ctx), acp.ErrCancelledByPeer)})
	return v2.RequestPermissionResponse{}, ctx.Err()
}

// tapped reports the agent's $/cancel_request, the client's notifications, and its answers to
// the agent's permission requests, as they cross the wire.
type tapped struct {
	acp.Transport
	out        *out
	mu         sync.Mutex
	permission map[string]bool // ids of the agent's permission requests
	answered   chan struct{}
}

func (t *tapped) ReadFrame() ([]byte, error) {
	frame, err := t.Transport.ReadFrame()
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			RequestID json.RawMessage `json:"requestId"`
		} `json:"params"`
	}
	if err == nil && json.Unmarshal(frame, &msg) == nil {
		switch msg.Method {
		case acp.CancelRequestMethod:
			t.out.emit("cancel_request", map[string]any{"requestId": msg.Params.RequestID})
		case v2.MethodSessionRequestPermission:
			t.mu.Lock()
			t.permission[string(msg.ID)] = true
			t.mu.Unlock()
		}
	}
	return frame, err
}

func (t *tapped) WriteFrame(frame []byte) error {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if json.Unmarshal(frame, &msg) == nil {
		t.mu.Lock()
		answer := msg.Method == "" && t.permission[string(msg.ID)]
		t.mu.Unlock()
		switch {
		case answer:
			t.out.emit("permission_answer", map[string]any{"result": msg.Result, "error": msg.Error})
			t.answered <- struct{}{}
		case msg.Method != "" && msg.ID == nil:
			t.out.emit("sent", map[string]any{"method": msg.Method})
		}
	}
	return t.Transport.WriteFrame(frame)
}

type run struct {
	ctx     context.Context
	out     *out
	agent   v2.AgentPeer
	client  *client
	tap     *tapped
	session v2.SessionID
	view    *acp.SessionView[v2.SessionUpdate, v2.ContentBlock]
}

func text(words string) []v2.ContentBlock {
	return []v2.ContentBlock{v2.ContentBlockText{Text: words}}
}

// prompt sends the n-th prompt through the view and reports its answer.
func (r *run) prompt(n int, words string) (string, error) {
	id, err := r.view.Prompt(r.ctx, text(words))
	var failure *acp.Error
	switch {
	case err == nil:
		r.out.emit("prompt", map[string]any{"n": n, "messageId": id})
	case errors.As(err, &failure):
		r.out.emit("error", map[string]any{"method": v2.MethodSessionPrompt, "n": n, "code": failure.Code, "message": failure.Message})
	}
	return id, err
}

// idle waits through the view for the idle update that ends the n-th prompt's work.
func (r *run) idle(ctx context.Context, n int, id string) error {
	reason, err := r.view.Idle(ctx, id)
	if err != nil {
		return fmt.Errorf("idle of prompt %d: %w", n, err)
	}
	r.out.emit("idle", map[string]any{"n": n, "stopReason": reason})
	return nil
}

// chunks waits until the session's view has count agent message chunks.
func (r *run) chunks(count int) error {
	seen := 0
	for update := range r.view.Stream(r.ctx) {
		if _, ok := update.(v2.SessionUpdateAgentMessageChunk); ok {
			if seen++; seen == count {
				return nil
			}
		}
	}
	return fmt.Errorf("no %d chunks: %w", count, context.Cause(r.ctx))
}

func (r *run) asked() error {
	select {
	case <-r.client.asked:
		return nil
	case <-r.ctx.Done():
		return errors.New("the agent asked no permission")
	}
}

var scenarios = map[string]func(r *run) error{
	"prompt": func(r *run) error {
		id, err := r.prompt(1, "hello big world")
		if err != nil {
			return err
		}
		if err := r.idle(r.ctx, 1, id); err != nil {
			return err
		}
		var kinds []string
		for _, update := range r.view.Updates() {
			kinds = append(kinds, members(update)["sessionUpdate"].(string))
		}
		state, reason := r.view.State()
		r.out.emit("view", map[string]any{"updates": kinds, "state": state, "stopReason": reason})
		return nil
	},
	"cancel": func(r *run) error {
		id, err := r.prompt(1, long)
		if err != nil {
			return err
		}
		if err := r.chunks(1); err != nil {
			return err
		}
		held := make(chan error, 1)
		go func() {
			_, err := r.prompt(2, "held")
			held <- err
		}()
		if err := r.chunks(2); err != nil {
			return err
		}
		if err := r.view.Cancel(); err != nil {
			return err
		}
		if err := r.idle(r.ctx, 1, id); err != nil {
			return err
		}
		<-held
		return nil
	},
	"interrupt": func(r *run) error {
		id, err := r.prompt(1, long)
		if err != nil {
			return err
		}
		ctx, interrupt := context.WithCancel(r.ctx)
		defer interrupt()
		go func() {
			if r.chunks(2) == nil {
				interrupt() // Ctrl-C
			}
		}()
		return r.idle(acp.Graceful(ctx), 1, id)
	},
	"permission_selected": func(r *run) error {
		id, err := r.prompt(1, "please ask permission")
		if err != nil {
			return err
		}
		return r.idle(r.ctx, 1, id)
	},
	"permission_cancel_request": func(r *run) error {
		id, err := r.prompt(1, "please ask permission")
		if err != nil {
			return err
		}
		if err := r.asked(); err != nil {
			return err
		}
		if err := r.view.Cancel(); err != nil {
			return err
		}
		if err := r.idle(r.ctx, 1, id); err != nil {
			return err
		}
		select {
		case <-r.tap.answered:
			return nil
		case <-r.ctx.Done():
			return errors.New("the permission request was never answered")
		}
	},
	"close": func(r *run) error {
		id, err := r.prompt(1, long)
		if err != nil {
			return err
		}
		if err := r.chunks(2); err != nil {
			return err
		}
		closed, err := r.agent.SessionClose(r.ctx, v2.CloseSessionRequest{SessionID: r.session})
		if err != nil {
			return fmt.Errorf("session/close: %w", err)
		}
		// The answer reaches us after the notifications the agent sent before it.
		state, reason := r.view.State()
		r.out.emit("close", members(closed))
		r.out.emit("close_order", map[string]any{"idle_before_close": state == v2.Behaviour.Lifecycle.States.Idle, "stopReason": reason})
		return r.idle(r.ctx, 1, id)
	},
	"meta":     meta("set title"),
	"untitled": meta("set title untitled"),
}

func meta(words string) func(r *run) error {
	return func(r *run) error {
		id, err := r.prompt(1, words)
		if err != nil {
			return err
		}
		if err := r.idle(r.ctx, 1, id); err != nil {
			return err
		}
		r.client.mu.Lock()
		info := r.client.info
		r.client.mu.Unlock()
		r.out.emit("meta", map[string]any{"value": info.Meta})
		r.out.emit("title", map[string]any{"value": info.Title})
		listed, err := r.agent.SessionList(r.ctx, v2.ListSessionsRequest{})
		if err != nil {
			return fmt.Errorf("session/list: %w", err)
		}
		r.out.emit("list", members(listed))
		return nil
	}
}

func main() {
	if len(os.Args) < 3 || scenarios[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: v2client <scenario> <agent program> [args...]")
		os.Exit(2)
	}
	if err := start(os.Args[1], os.Args[2], os.Args[3:]); err != nil {
		fmt.Fprintf(os.Stderr, "v2client [%s]: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

func start(scenario, program string, args []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	process, err := acp.Spawn(context.Background(), program, args...)
	if err != nil {
		return err
	}
	o := &out{}
	tap := &tapped{Transport: process, out: o, permission: map[string]bool{}, answered: make(chan struct{}, 4)}
	c := &client{out: o, scenario: scenario, asked: make(chan struct{}, 4)}
	conn, agent := v2.ConnectClient(tap, c)
	r := &run{ctx: ctx, out: o, agent: agent, client: c, tap: tap}
	err = func() error {
		initialized, err := agent.Initialize(ctx, v2.InitializeRequest{ProtocolVersion: v2.EditionVersion, Info: v2.Implementation{Name: "acp-codegen-go-v2-client", Version: "0"}})
		if err != nil {
			return fmt.Errorf("initialize: %w", err)
		}
		o.emit("initialize", members(initialized))
		created, err := agent.SessionNew(ctx, v2.NewSessionRequest{Cwd: "/interop"})
		if err != nil {
			return fmt.Errorf("session/new: %w", err)
		}
		o.emit("session", map[string]any{"sessionId": created.SessionID})
		r.session, r.view = created.SessionID, agent.Session(created.SessionID)
		if err := scenarios[scenario](r); err != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond) // anything that still comes is reported
		return nil
	}()
	_ = conn.Close() // ends the agent's process group
	if err != nil {
		return err
	}
	o.emit("done", nil)
	return nil
}
