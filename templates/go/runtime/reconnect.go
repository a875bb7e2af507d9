package acp

// Layer: typed layer (a remote agent's connection that comes back when lost, its sessions
// resumed or loaded; opt-in: RemoteOptions.Reconnect; the Python runtime's reconnect.py and the
// TypeScript runtime's reconnect.ts, same rules).
//
// When the transport ends without our asking (the server process died, the network dropped):
//   - every request in flight fails at once with ErrConnectionClosed (the connection's rule:
//     "every pending caller fails promptly"; a prompt whose answer never came is the caller's
//     to retry, never dropped silently);
//   - a new transport is opened to the same URL, at most Attempts times, the n-th after
//     Delay(n) (exponential backoff with a cap); each attempt logs one line,
//     `reconnect 2/5 to URL: …`;
//   - on it initialize is sent again with the params sent first, then each session the client
//     opened (session/new), loaded or resumed is resumed (session/resume, when the agent
//     advertises sessionCapabilities.resume: no replay) or else loaded (session/load,
//     loadSession: its replay reaches the client's SessionUpdate as it did the first time); an
//     agent that advertises neither cannot take the sessions over, and the attempt fails;
//   - Remote.Conn is then the new connection and Remote.Reconnected returns nil; after the last
//     failed attempt it returns ErrConnectionClosed.
//
// Behind a load balancer the new connection may reach another server process: it serves the
// sessions when the processes share a session store (docs/scale.md).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"
)

// Reconnect is how a lost remote connection is retried; a zero field takes its default.
type Reconnect struct {
	// Attempts at most (5).
	Attempts int
	// FirstDelay is the wait before the first attempt (100ms); each next waits Factor (2)
	// times longer, at most MaxDelay (5s).
	FirstDelay time.Duration
	Factor     float64
	MaxDelay   time.Duration
	// AttemptTimeout is what one attempt may take: connect, initialize, take the sessions
	// over (10s).
	AttemptTimeout time.Duration
	// Log takes the one line per attempt (log.Print when nil).
	Log func(line string)
}

func (p Reconnect) withDefaults() (Reconnect, error) {
	if p.Attempts < 0 || p.FirstDelay < 0 || p.MaxDelay < 0 || p.AttemptTimeout < 0 || (p.Factor != 0 && p.Factor < 1) {
		return p, errors.New("acp.Reconnect: attempts >= 1, delays >= 0, factor >= 1")
	}
	defaults := Reconnect{Attempts: 5, FirstDelay: 100 * time.Millisecond, Factor: 2, MaxDelay: 5 * time.Second, AttemptTimeout: 10 * time.Second}
	if p.Attempts == 0 {
		p.Attempts = defaults.Attempts
	}
	if p.FirstDelay == 0 {
		p.FirstDelay = defaults.FirstDelay
	}
	if p.Factor == 0 {
		p.Factor = defaults.Factor
	}
	if p.MaxDelay == 0 {
		p.MaxDelay = defaults.MaxDelay
	}
	if p.AttemptTimeout == 0 {
		p.AttemptTimeout = defaults.AttemptTimeout
	}
	if p.Log == nil {
		p.Log = func(line string) { log.Print(line) }
	}
	return p, nil
}

// Delay is the wait before attempt n (from 1): min(FirstDelay * Factor^(n-1), MaxDelay), the
// defaults taking the place of zero fields.
func (p Reconnect) Delay(attempt int) time.Duration {
	p, _ = p.withDefaults()
	delay := float64(p.FirstDelay)
	for i := 1; i < attempt && delay < float64(p.MaxDelay); i++ {
		delay *= p.Factor
	}
	return min(time.Duration(delay), p.MaxDelay)
}

// watch waits for the connection's loss and reconnects, until Close or the attempts are spent.
func (r *Remote) watch() {
	defer r.watching.Done()
	for {
		r.mu.Lock()
		conn, lost := r.conn, r.lost
		r.mu.Unlock()
		select {
		case <-lost:
		case <-r.ctx.Done():
			return
		}
		if r.ctx.Err() != nil {
			return
		}
		r.release(conn)
		if !r.retry() {
			r.mu.Lock()
			r.gaveUp = true
			r.signal()
			r.mu.Unlock()
			return
		}
	}
}

// release closes a lost connection (its pending requests have failed already) without waiting.
func (r *Remote) release(conn *Connection) {
	r.watching.Add(1)
	go func() {
		defer r.watching.Done()
		_ = conn.Close()
	}()
}

// signal wakes the callers of Reconnected (under r.mu).
func (r *Remote) signal() {
	close(r.changed)
	r.changed = make(chan struct{})
}

func (r *Remote) retry() bool {
	total := r.policy.Attempts
	for attempt := 1; attempt <= total; attempt++ {
		wait := time.NewTimer(r.policy.Delay(attempt))
		select {
		case <-wait.C:
		case <-r.ctx.Done():
			wait.Stop()
			return true // Close: Reconnected answers ErrConnectionClosed
		}
		ctx, cancel := context.WithTimeout(r.ctx, r.policy.AttemptTimeout)
		conn, lost, how, err := r.attempt(ctx)
		cancel()
		if r.ctx.Err() != nil {
			if err == nil {
				r.release(conn)
			}
			return true
		}
		if err != nil {
			reason, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
			if errors.Is(err, context.DeadlineExceeded) {
				reason = "no answer in " + r.policy.AttemptTimeout.String()
			}
			r.policy.Log(fmt.Sprintf("reconnect %d/%d to %s: failed: %s", attempt, total, r.url, reason))
			continue
		}
		r.mu.Lock()
		r.conn, r.lost = conn, lost
		count := len(r.sessions)
		r.signal()
		r.mu.Unlock()
		r.policy.Log(fmt.Sprintf("reconnect %d/%d to %s: connected, %d session(s) %s", attempt, total, r.url, count, how))
		return true
	}
	r.policy.Log(fmt.Sprintf("reconnect to %s: gave up after %d attempts", r.url, total))
	return false
}

// attempt is a new connection, initialized, with every session taken over; closed on failure.
func (r *Remote) attempt(ctx context.Context) (*Connection, chan struct{}, string, error) {
	conn, lost, err := r.open(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	how, err := r.takeOver(ctx, conn)
	if err != nil {
		_ = conn.Close()
		return nil, nil, "", err
	}
	return conn, lost, how, nil
}

func (r *Remote) takeOver(ctx context.Context, conn *Connection) (string, error) {
	r.mu.Lock()
	initialize, sessions := r.initialize, append([]trackedSession(nil), r.sessions...)
	r.mu.Unlock()
	if initialize == nil {
		return "(none open)", nil // the caller had not initialized: nothing to ask again
	}
	raw, err := conn.Request(ctx, "initialize", initialize)
	if err != nil {
		return "", err
	}
	var answer struct {
		AgentCapabilities struct {
			LoadSession         bool                       `json:"loadSession"`
			SessionCapabilities map[string]json.RawMessage `json:"sessionCapabilities"`
		} `json:"agentCapabilities"`
	}
	_ = json.Unmarshal(raw, &answer)
	method, how := "", "(none open)"
	if _, ok := answer.AgentCapabilities.SessionCapabilities["resume"]; ok {
		method, how = "session/resume", "resumed"
	} else if answer.AgentCapabilities.LoadSession {
		method, how = "session/load", "loaded"
	} else if len(sessions) > 0 {
		return "", errors.New("the agent advertises neither session/resume nor load")
	}
	for _, session := range sessions {
		params := map[string]json.RawMessage{"sessionId": sessionIDJSON(session.id), "cwd": session.cwd, "mcpServers": session.mcpServers}
		if _, err := conn.Request(ctx, method, params); err != nil {
			return "", err
		}
	}
	return how, nil
}

func sessionIDJSON(value string) json.RawMessage {
	encoded, _ := json.Marshal(value)
	return encoded
}
