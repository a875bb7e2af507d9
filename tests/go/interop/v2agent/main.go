// Command v2agent is an ACP v2 agent on the generated Go package, serving on stdio, for the v2
// interop tests (tests/go/test_interop_go_v2.py); it behaves like
// tests/typescript/interop_v2_agent.ts, so the official TS SDK's v2 client drives both. The SDK
// answers session/prompt at insertion, sends user_message, running and the closing idle,
// reports requires_action while the work awaits a permission (running once answered), holds
// prompts while work runs, and acts on session/cancel and session/close; this file only writes
// the work (SessionPrompt):
//
//   - every word of the prompt: one agent_message_chunk ($ACP_V2_WORD_DELAY_MS apart, default 30);
//   - "permission" in the prompt: session/request_permission first; "allow" goes on, the
//     cancelled outcome ends the work cancelled, anything else ends it;
//   - "title" in the prompt: two session_info_updates whose _meta patches leave
//     {"nested": {"b": 2}} under v2's top-level patch rule (session/list shows the result).
//
// It advertises capabilities.session and serves the whole session baseline it stands for:
// session/new, session/list and session/resume here, session/prompt, session/cancel and
// session/close by the SDK.
package main

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	acp "acp-protocol-sdk"
	v2 "acp-protocol-sdk/v2"
	"acp-protocol-sdk/wire"
)

const name = "acp-codegen-go-v2-interop-agent"

type stored struct {
	cwd  v2.AbsolutePath
	info acp.SessionInfo

	running  bool   // work runs in the session
	lastStop string // the stop reason of the last work that ended ("": none yet)
}

type agent struct {
	v2.UnimplementedAgent
	delay time.Duration

	mu       sync.Mutex
	sessions map[v2.SessionID]*stored
	order    []v2.SessionID
}

func (a *agent) Initialize(context.Context, v2.InitializeRequest) (v2.InitializeResponse, error) {
	// The SDK answers the negotiated protocolVersion; this agent serves session/new,
	// session/list and session/resume (the SDK: session/prompt, session/cancel and
	// session/close), so it says so: "Supplying `{}` means the agent supports the baseline
	// session methods".
	capabilities := v2.AgentCapabilities{Session: wire.Some(v2.SessionCapabilities{})}
	return v2.InitializeResponse{Info: v2.Implementation{Name: name, Version: "0"}, Capabilities: wire.Some(capabilities)}, nil
}

func (a *agent) SessionNew(_ context.Context, params v2.NewSessionRequest) (v2.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := v2.SessionID("ours-go-v2-" + strconv.Itoa(len(a.order)+1))
	a.sessions[id] = &stored{cwd: params.Cwd}
	a.order = append(a.order, id)
	return v2.NewSessionResponse{SessionID: id}, nil
}

func (a *agent) SessionList(_ context.Context, params v2.ListSessionsRequest) (v2.ListSessionsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	listed := []v2.SessionInfo{}
	for _, id := range a.order {
		s := a.sessions[id]
		if cwd, ok := params.Cwd.Get(); ok && cwd != s.cwd {
			continue
		}
		info := v2.SessionInfo{SessionID: id, Cwd: s.cwd}
		if s.info.Title != nil {
			info.Title = wire.Some(*s.info.Title)
		}
		listed = append(listed, info)
	}
	return v2.ListSessionsResponse{Sessions: listed}, nil
}

// SessionResume resumes a session of this agent; it keeps no history, so a replay replays
// nothing. ResumeSessionResponse: "The agent MUST send a current `state_update` after any
// requested history replay and before this response, even without replay": running while work
// runs, else idle with the last stop reason ("Repeated or resume snapshots may carry the last
// stop reason for context").
func (a *agent) SessionResume(ctx context.Context, params v2.ResumeSessionRequest) (v2.ResumeSessionResponse, error) {
	a.mu.Lock()
	s := a.sessions[params.SessionID]
	var running bool
	var lastStop string
	if s != nil {
		running, lastStop = s.running, s.lastStop
	}
	a.mu.Unlock()
	if s == nil {
		data, _ := json.Marshal(map[string]any{"sessionId": params.SessionID})
		return v2.ResumeSessionResponse{}, &acp.Error{Code: acp.ResourceNotFound, Message: "Session not found", Data: data}
	}
	var state v2.SessionUpdate = v2.SessionUpdateStateUpdateIdleNone{}
	switch {
	case running:
		state = v2.SessionUpdateStateUpdateRunning{}
	case lastStop == "end_turn":
		state = v2.SessionUpdateStateUpdateIdleEndTurn{}
	case lastStop == "cancelled":
		state = v2.SessionUpdateStateUpdateIdleCancelled{}
	}
	update := v2.UpdateSessionNotification{SessionID: params.SessionID, Update: state}
	if err := v2.ClientOf(ctx).SessionUpdate(update); err != nil {
		return v2.ResumeSessionResponse{}, err
	}
	return v2.ResumeSessionResponse{}, nil
}

// track marks session's work running until the returned function is called with its end.
func (a *agent) track(session v2.SessionID) func(ctx context.Context, stop string, err error) {
	a.mu.Lock()
	if s := a.sessions[session]; s != nil {
		s.running = true
	}
	a.mu.Unlock()
	return func(ctx context.Context, stop string, err error) {
		switch {
		case ctx.Err() != nil:
			stop = "cancelled" // what the SDK reports for work that ends cancelled
		case err != nil:
			stop = "error"
		case stop == "":
			stop = "end_turn"
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		if s := a.sessions[session]; s != nil {
			s.running, s.lastStop = false, stop
		}
	}
}

var (
	titleWord      = regexp.MustCompile(`(?i)\btitle\b`)
	permissionWord = regexp.MustCompile(`(?i)\bpermission\b`)
)

func (a *agent) SessionPrompt(ctx context.Context, params v2.PromptRequest) (stop string, err error) {
	defer func(end func(context.Context, string, error)) { end(ctx, stop, err) }(a.track(params.SessionID))
	client := v2.ClientOf(ctx)
	session := params.SessionID
	send := func(update v2.SessionUpdate) error {
		return client.SessionUpdate(v2.UpdateSessionNotification{SessionID: session, Update: update})
	}
	var words []string
	for _, block := range params.Prompt {
		if text, ok := block.(v2.ContentBlockText); ok {
			words = append(words, strings.Fields(text.Text)...)
		}
	}
	text := strings.Join(words, " ")
	if titleWord.MatchString(text) {
		patches := []v2.SessionUpdateSessionInfoUpdate{
			{Title: wire.Some(text), Meta: wire.Some(map[string]json.RawMessage{"keep": json.RawMessage(`1`), "nested": json.RawMessage(`{"a":1}`)})},
			{Meta: wire.Some(map[string]json.RawMessage{"keep": json.RawMessage(`null`), "nested": json.RawMessage(`{"b":2}`)})},
		}
		policy := acp.MetaPolicyOf(v2.Behaviour, "SessionInfoUpdate")
		for _, patch := range patches {
			a.mu.Lock()
			if s := a.sessions[session]; s != nil {
				s.info, _ = acp.ApplySessionInfoUpdate(s.info, patch, policy)
			}
			a.mu.Unlock()
			if err := send(patch); err != nil {
				return "", err
			}
		}
	}
	if permissionWord.MatchString(text) {
		answer, err := client.SessionRequestPermission(ctx, v2.RequestPermissionRequest{
			SessionID: session,
			Title:     "Echo the prompt back?",
			Options: []v2.PermissionOption{
				{OptionID: "allow", Name: "Allow", Kind: v2.PermissionOptionKindAllowOnce},
				{OptionID: "reject", Name: "Reject", Kind: v2.PermissionOptionKindRejectOnce},
			},
		})
		if err != nil {
			return "", err
		}
		switch outcome := answer.Outcome.(type) {
		case v2.RequestPermissionOutcomeCancelled:
			return "cancelled", nil
		case v2.RequestPermissionOutcomeSelected:
			if outcome.OptionID != "allow" {
				return "end_turn", nil
			}
		default:
			return "end_turn", nil
		}
	}
	messageID := v2.MessageID("agent-" + string(acp.RequestIDOf(ctx)))
	for i, word := range words {
		if i < len(words)-1 {
			word += " "
		}
		chunk := v2.SessionUpdateAgentMessageChunk{MessageID: messageID, Content: v2.ContentBlockText{Text: word}}
		if err := send(chunk); err != nil {
			return "", err
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(a.delay):
		}
	}
	return "end_turn", nil
}

func main() {
	delay := 30 * time.Millisecond
	if ms, err := strconv.Atoi(os.Getenv("ACP_V2_WORD_DELAY_MS")); err == nil {
		delay = time.Duration(ms) * time.Millisecond
	}
	conn, _ := v2.ConnectAgent(acp.Stdio(), &agent{delay: delay, sessions: map[v2.SessionID]*stored{}})
	<-conn.Done() // the client ended its stream
}
