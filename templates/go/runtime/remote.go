package acp

// Layer: transport and typed layer (a remote agent by URL: its transport chosen by the URL's
// scheme, and the connection the client holds, kept up by Reconnect when set: reconnect.go;
// the Python runtime's transports/remote.py and reconnect.py, the TypeScript runtime's
// transports/remote.ts and reconnect.ts).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// RemoteOptions is how a remote agent is reached: the zero value is a plain connection.
type RemoteOptions struct {
	// Token, when set, is sent as `Authorization: Bearer <token>`.
	Token string
	// Header is sent with the WebSocket upgrade request.
	Header http.Header
	// FrameLimit is the longest message read (DefaultFrameLimit when 0).
	FrameLimit int
	// Reconnect, when set, opens a new connection when this one is lost and takes the sessions
	// over (see Remote); without it a lost connection stays lost.
	Reconnect *Reconnect
	// Connection configures each connection made (MaxInFlight, EOFGrace, …).
	Connection []Option
}

// DialRemote opens a transport to the ACP agent at url: a WebSocket for ws:// and wss://.
// Streamable HTTP (http://, https://) is not in the Go runtime yet: one error says so.
func DialRemote(ctx context.Context, url string, options RemoteOptions) (Transport, error) {
	header := options.Header.Clone()
	if header == nil {
		header = http.Header{}
	}
	if options.Token != "" {
		header.Set("Authorization", "Bearer "+options.Token)
	}
	switch {
	case strings.HasPrefix(url, "ws://"), strings.HasPrefix(url, "wss://"):
		return DialWebSocket(ctx, url, header, options.FrameLimit)
	case strings.HasPrefix(url, "http://"), strings.HasPrefix(url, "https://"):
		return nil, fmt.Errorf("%s: the Go runtime speaks ACP's WebSocket transport (ws://, wss://), not yet Streamable HTTP", url)
	}
	return nil, fmt.Errorf("a remote agent's URL starts with ws:// or wss://, not %q", url)
}

// Remote is a client's connection to a remote agent. Conn is the connection now: with
// Reconnect set, a lost one is replaced (read Conn each time, do not keep an old one), and
// Reconnected waits for that. Close ends it, and every goroutine it started.
type Remote struct {
	url     string
	handler Handler
	options RemoteOptions
	policy  Reconnect

	mu      sync.Mutex
	conn    *Connection
	lost    chan struct{} // closed once conn's transport has ended
	changed chan struct{} // closed (and replaced) when conn is replaced or given up
	gaveUp  bool
	closing bool
	// What a new connection asks again: initialize's params, and the sessions opened, loaded
	// or resumed, in the order they were.
	initialize json.RawMessage
	sessions   []trackedSession

	ctx      context.Context // ends with Close: an attempt under way ends with it
	stop     context.CancelFunc
	watching sync.WaitGroup // the watch, and the closing of lost connections
}

type trackedSession struct {
	id         string
	cwd        json.RawMessage
	mcpServers json.RawMessage
}

// ConnectRemote opens a connection to the agent at url served by handler (each edition's
// ConnectRemoteAgent calls it with its client's handler); see Remote.
func ConnectRemote(ctx context.Context, url string, handler Handler, options RemoteOptions) (*Remote, error) {
	r := &Remote{url: url, handler: handler, options: options, changed: make(chan struct{})}
	if options.Reconnect != nil {
		policy, err := options.Reconnect.withDefaults()
		if err != nil {
			return nil, err
		}
		r.policy = policy
	}
	r.ctx, r.stop = context.WithCancel(context.Background())
	conn, lost, err := r.open(ctx)
	if err != nil {
		r.stop()
		return nil, err
	}
	r.conn, r.lost = conn, lost
	if options.Reconnect != nil {
		r.watching.Add(1)
		go r.watch()
	}
	return r, nil
}

// Conn is the connection now (a new one after a reconnect).
func (r *Remote) Conn() *Connection {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conn
}

// Reconnected returns nil once connected: at once when the connection is up; after a loss,
// once Reconnect has connected again and taken the sessions over. It fails (ErrConnectionClosed)
// when the attempts are spent, without Reconnect once the connection is lost, after Close,
// or with ctx's cause.
func (r *Remote) Reconnected(ctx context.Context) error {
	for {
		r.mu.Lock()
		lost, changed, gaveUp, closing := r.lost, r.changed, r.gaveUp, r.closing
		r.mu.Unlock()
		switch {
		case closing:
			return ErrConnectionClosed
		case gaveUp:
			return fmt.Errorf("%w: reconnecting to %s failed %d times", ErrConnectionClosed, r.url, r.policy.Attempts)
		}
		select {
		case <-lost:
		default:
			return nil
		}
		if r.options.Reconnect == nil {
			return ErrPeerClosed
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// Close ends the connection: a loss from now on is not retried, an attempt under way ends.
func (r *Remote) Close() error {
	r.mu.Lock()
	r.closing = true
	r.mu.Unlock()
	r.stop()
	r.watching.Wait()
	return r.Conn().Close()
}

// open dials url and starts a connection on it; lost is closed once its transport has ended.
func (r *Remote) open(ctx context.Context) (*Connection, chan struct{}, error) {
	t, err := DialRemote(ctx, r.url, r.options)
	if err != nil {
		return nil, nil, err
	}
	lost := make(chan struct{})
	options := r.options.Connection
	if r.options.Reconnect != nil {
		options = append(slices.Clone(options), func(c *Connection) { c.observe = r.note })
	}
	return NewConnection(&watchedTransport{Transport: t, lost: lost}, r.handler, options...), lost, nil
}

// watchedTransport closes lost when reading ends (the peer's end, a broken socket, or Close):
// before the connection fails its pending requests, so Reconnected never sees them fail first.
type watchedTransport struct {
	Transport
	lost chan struct{}
	once sync.Once
}

func (t *watchedTransport) ReadFrame() ([]byte, error) {
	frame, err := t.Transport.ReadFrame()
	var tooLong *FrameTooLong
	if err != nil && !errors.As(err, &tooLong) {
		t.once.Do(func() { close(t.lost) })
	}
	return frame, err
}

// tracked are the requests a new connection makes again.
var tracked = map[string]bool{"initialize": true, "session/new": true, "session/load": true, "session/resume": true}

// note keeps what a new connection must ask again: initialize's params, and each session opened
// (session/new's answer), loaded or resumed with its cwd and mcpServers.
func (r *Remote) note(method string, params any, result json.RawMessage) {
	if !tracked[method] {
		return
	}
	encoded, err := json.Marshal(params)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if method == "initialize" {
		r.initialize = encoded
		return
	}
	var given, answer struct {
		SessionID  string          `json:"sessionId"`
		Cwd        json.RawMessage `json:"cwd"`
		MCPServers json.RawMessage `json:"mcpServers"`
	}
	_ = json.Unmarshal(encoded, &given)
	_ = json.Unmarshal(result, &answer)
	id := given.SessionID
	if id == "" {
		id = answer.SessionID
	}
	if id == "" {
		return
	}
	session := trackedSession{id: id, cwd: given.Cwd, mcpServers: given.MCPServers}
	if session.cwd == nil {
		session.cwd = json.RawMessage(`""`)
	}
	if session.mcpServers == nil {
		session.mcpServers = json.RawMessage(`[]`)
	}
	for i := range r.sessions {
		if r.sessions[i].id == id {
			r.sessions[i] = session
			return
		}
	}
	r.sessions = append(r.sessions, session)
}
