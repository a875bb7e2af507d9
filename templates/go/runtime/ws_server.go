package acp

// Layer: transport (the server of ACP's remote transport over WebSocket; the Python runtime's
// transports/http_server.py and the TypeScript runtime's transports/http_server.ts, their
// WebSocket half). The RFD "Streamable HTTP & WebSocket Transport": "A GET with `Upgrade:
// websocket` upgrades to a persistent bidirectional channel"; "A new connection is created on
// upgrade. The `Acp-Connection-Id` is returned in the upgrade response headers"; "All messages
// are WebSocket text frames containing JSON-RPC. Binary frames are ignored. On disconnect, the
// server cleans up the connection". RFC 6455's handshake here (§4.2), its frames in
// ws_frames.go; the checks and limits of http_policy (Origin 403, bearer token 401,
// connections 429) come first. Streamable HTTP (POST, SSE) is not served by the Go runtime yet.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// ServeOptions is how a Server serves; a zero field takes its default.
type ServeOptions struct {
	// Path is the endpoint ("/acp": "A single `/acp` endpoint"); "*" serves every path (a
	// handler mounted under a path of your own).
	Path string
	// AllowedOrigins are the origins (scheme://host[:port]) whose web pages may connect: an
	// upgrade carrying another Origin is refused 403 (DNS rebinding). Programs that are not
	// browsers send none and are always let in.
	AllowedOrigins []string
	// Token, when set, is required of every upgrade: `Authorization: Bearer <token>` (compared
	// in constant time), else 401.
	Token string
	// FrameLimit is the longest message read (DefaultFrameLimit): a longer one is dropped and
	// a request answered -32600, as over stdio.
	FrameLimit int
	// MaxConnections open at once (1024): 429 past it.
	MaxConnections int
	// StallTimeout is how long one write may wait for a client that reads nothing (60s):
	// then its socket is ended.
	StallTimeout time.Duration
	// Route, when set, is this process's name behind a load balancer (lowercase letters and
	// digits): every Acp-Connection-Id is `<route>.<random>` (deploy/nginx/acp.conf).
	Route string
	// Connection configures each connection served (MaxInFlight, EOFGrace, …). A socket that
	// ends cancels its connection's handlers at once (EOFGrace(0)) unless an option says
	// otherwise: nothing can reach a client that has left.
	Connection []Option
}

// Connect starts a connection on a socket's transport: a role's handler served on it (each
// edition's ServeRemoteAgent gives ConnectAgent with an agent from its factory).
type Connect func(t Transport, options ...Option) *Connection

// Server is an http.Handler serving ACP's remote transport over WebSocket: each upgrade one
// Connection from connect. Its ctx ending (or Close) closes every connection.
type Server struct {
	connect Connect
	options ServeOptions

	mu       sync.Mutex
	conns    map[*Connection]struct{}
	reserved int // upgrades under way, counted against MaxConnections
	closing  bool
	ended    sync.WaitGroup // one per connection, until it is done
	unwatch  func() bool
}

// NewServer is a Server of connect; ctx ending closes it.
func NewServer(ctx context.Context, connect Connect, options ServeOptions) (*Server, error) {
	switch {
	case options.FrameLimit < 0 || options.MaxConnections < 0 || options.StallTimeout < 0:
		return nil, errors.New("acp.ServeOptions: FrameLimit, MaxConnections and StallTimeout are not negative")
	case strings.Trim(options.Route, "abcdefghijklmnopqrstuvwxyz0123456789") != "":
		return nil, fmt.Errorf("acp.ServeOptions: Route is lowercase letters and digits, not %q", options.Route)
	}
	if options.Path == "" {
		options.Path = "/acp"
	}
	if options.FrameLimit == 0 {
		options.FrameLimit = DefaultFrameLimit
	}
	if options.MaxConnections == 0 {
		options.MaxConnections = 1024
	}
	if options.StallTimeout == 0 {
		options.StallTimeout = 60 * time.Second
	}
	options.AllowedOrigins = slices.Clone(options.AllowedOrigins)
	for i, origin := range options.AllowedOrigins {
		options.AllowedOrigins[i] = strings.TrimSuffix(origin, "/")
	}
	s := &Server{connect: connect, options: options, conns: map[*Connection]struct{}{}}
	s.unwatch = context.AfterFunc(ctx, func() { _ = s.Close() })
	return s, nil
}

// Connections is how many connections are open.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Close refuses new upgrades (503), closes every connection (their handlers' ctx ends, their
// clients get a close frame) and waits for them.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closing = true
	conns := make([]*Connection, 0, len(s.conns))
	for conn := range s.conns {
		conns = append(conns, conn)
	}
	s.mu.Unlock()
	s.unwatch()
	for _, conn := range conns {
		go conn.Close()
	}
	s.ended.Wait()
	return nil
}

// refusal is an HTTP answer to a request that is not served.
type refusal struct {
	status int
	text   string
	header [2]string
}

// ServeHTTP upgrades a WebSocket request to a connection, or refuses it with its status and a
// one-line reason.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if refused := s.check(r); refused != nil {
		if refused.header[0] != "" {
			w.Header().Set(refused.header[0], refused.header[1])
		}
		http.Error(w, refused.text, refused.status)
		return
	}
	defer s.release()
	conn, buffered, err := http.NewResponseController(w).Hijack()
	if err != nil {
		http.Error(w, "the connection cannot be taken over for a WebSocket: "+err.Error(), http.StatusInternalServerError)
		return
	}
	_ = conn.SetDeadline(time.Time{}) // the http.Server's timeouts are for requests, not sockets
	id := s.connectionID()
	// "If the server chooses to accept the incoming connection, it MUST reply with a valid HTTP
	// response" (§4.2.2): 101, Upgrade, Connection and the key's Sec-WebSocket-Accept.
	_, _ = buffered.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + acceptKey(r.Header.Get("Sec-WebSocket-Key")) + "\r\nAcp-Connection-Id: " + id + "\r\n\r\n")
	if err := buffered.Flush(); err != nil {
		_ = conn.Close()
		return
	}
	transport := &WebSocketTransport{conn: conn, reader: bufio.NewReaderSize(buffered.Reader, 64<<10),
		limit: s.options.FrameLimit, server: true, stall: s.options.StallTimeout}
	options := append([]Option{EOFGrace(0)}, s.options.Connection...)
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		_ = transport.Close()
		return
	}
	served := s.connect(transport, options...)
	s.conns[served] = struct{}{}
	s.ended.Add(1)
	s.mu.Unlock()
	go func() {
		<-served.Done()
		s.mu.Lock()
		delete(s.conns, served)
		s.mu.Unlock()
		s.ended.Done()
	}()
}

// check refuses what is not a WebSocket upgrade this server takes (nil: it takes it, and one
// slot is reserved for it until release).
func (s *Server) check(r *http.Request) *refusal {
	path := strings.TrimSuffix(r.URL.Path, "/")
	if s.options.Path != "*" && path != strings.TrimSuffix(s.options.Path, "/") {
		return &refusal{status: http.StatusNotFound, text: "Not Found"}
	}
	if origin := r.Header.Get("Origin"); origin != "" && !slices.Contains(s.options.AllowedOrigins, strings.TrimSuffix(origin, "/")) {
		return &refusal{status: http.StatusForbidden, text: "Origin not allowed"}
	}
	if !s.authorized(r.Header.Get("Authorization")) {
		return &refusal{status: http.StatusUnauthorized, text: "Unauthorized", header: [2]string{"WWW-Authenticate", "Bearer"}}
	}
	if refused := handshake(r); refused != nil {
		return refused
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closing:
		return &refusal{status: http.StatusServiceUnavailable, text: "The server is closing"}
	case len(s.conns)+s.reserved >= s.options.MaxConnections:
		return &refusal{status: http.StatusTooManyRequests, text: fmt.Sprintf("Too Many Requests: %d connections are open", s.options.MaxConnections), header: [2]string{"Retry-After", "1"}}
	}
	s.reserved++
	return nil
}

func (s *Server) release() {
	s.mu.Lock()
	s.reserved--
	s.mu.Unlock()
}

// handshake checks the client's opening handshake (RFC 6455 §4.2.1; "If the server, while
// reading the handshake, finds that the client did not send a handshake that matches the
// description below …, the server MUST stop processing the client's handshake and return an
// HTTP response with an appropriate error code (such as 400 Bad Request)").
func handshake(r *http.Request) *refusal {
	if !headerHas(r.Header, "Upgrade", "websocket") {
		if r.Method == http.MethodGet {
			return &refusal{status: http.StatusBadRequest, text: "Bad Request: this endpoint serves ACP over WebSocket (GET with Upgrade: websocket); the Go runtime does not serve Streamable HTTP yet"}
		}
		return &refusal{status: http.StatusMethodNotAllowed, text: "Method Not Allowed: this endpoint serves ACP over WebSocket only (GET with Upgrade: websocket)", header: [2]string{"Allow", "GET"}}
	}
	key, err := base64.StdEncoding.DecodeString(r.Header.Get("Sec-WebSocket-Key"))
	switch {
	case r.Method != http.MethodGet: // "The method of the request MUST be GET"
		return &refusal{status: http.StatusMethodNotAllowed, text: "Method Not Allowed: a WebSocket opens with GET", header: [2]string{"Allow", "GET"}}
	case r.ProtoMajor != 1 || !r.ProtoAtLeast(1, 1): // "the HTTP version MUST be at least 1.1"; RFC 8441 (HTTP/2) is not served
		return &refusal{status: http.StatusHTTPVersionNotSupported, text: "HTTP Version Not Supported: a WebSocket upgrade is HTTP/1.1"}
	case !headerHas(r.Header, "Connection", "upgrade"):
		return &refusal{status: http.StatusBadRequest, text: "Bad Request: a WebSocket upgrade has Connection: Upgrade"}
	case err != nil || len(key) != 16: // "a randomly selected 16-byte value that has been base64-encoded"
		return &refusal{status: http.StatusBadRequest, text: "Bad Request: Sec-WebSocket-Key is 16 bytes in base64"}
	case r.Header.Get("Sec-WebSocket-Version") != "13":
		// "If this version does not match a version understood by the server, the server MUST
		// abort the WebSocket handshake … and instead send an appropriate HTTP error code (such
		// as 426 Upgrade Required) and a |Sec-WebSocket-Version| header field" (§4.2.2).
		return &refusal{status: http.StatusUpgradeRequired, text: "Upgrade Required: Sec-WebSocket-Version 13", header: [2]string{"Sec-WebSocket-Version", "13"}}
	}
	return nil
}

// headerHas tells whether a comma-separated header has token (case-insensitive).
func headerHas(header http.Header, name, token string) bool {
	for _, value := range header.Values(name) {
		for _, part := range strings.Split(value, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

func (s *Server) authorized(authorization string) bool {
	if s.options.Token == "" {
		return true
	}
	scheme, credentials, _ := strings.Cut(authorization, " ")
	if !strings.EqualFold(scheme, "bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimSpace(credentials)), []byte(s.options.Token)) == 1
}

// connectionID is 256 bits from the system's CSPRNG, URL-safe, after the route and a dot when
// the server has one.
func (s *Server) connectionID() string {
	var random [32]byte
	_, _ = rand.Read(random[:])
	id := base64.RawURLEncoding.EncodeToString(random[:])
	if s.options.Route != "" {
		return s.options.Route + "." + id
	}
	return id
}

// ServeRemote serves connect over WebSocket on listener (an http.Server with s as its handler)
// until ctx ends, then closes every connection and returns nil; or returns the listener's
// failure. The URL is ws://<listener's address>/acp.
func ServeRemote(ctx context.Context, listener net.Listener, connect Connect, options ServeOptions) error {
	s, err := NewServer(ctx, connect, options)
	if err != nil {
		return err
	}
	server := &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second}
	stop := context.AfterFunc(ctx, func() { _ = server.Close() })
	defer stop()
	err = server.Serve(listener)
	_ = s.Close()
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
