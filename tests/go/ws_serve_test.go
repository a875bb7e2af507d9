package tests

// The Go runtime's WebSocket server (acp.NewServer, ws_server.go and ws_frames.go), spoken to
// byte by byte: RFC 6455's opening handshake and its refusals, and the frames a client may send
// (fragments, pings, binary, the close handshake) and those it must not.

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	acp "acp-protocol-sdk"
)

// wsEcho answers "echo" with its params and holds "hold" until its ctx ends, telling held and
// ended.
type wsEcho struct {
	held, ended chan struct{}
}

func (h wsEcho) HandleRequest(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method == "hold" {
		h.held <- struct{}{}
		<-ctx.Done()
		h.ended <- struct{}{}
		return nil, ctx.Err()
	}
	return params, nil
}

func (wsEcho) HandleNotification(context.Context, string, json.RawMessage) {}

// serveEcho is a Server of wsEcho connections under httptest, with the options given.
func serveEcho(t *testing.T, ctx context.Context, options acp.ServeOptions) (*acp.Server, *httptest.Server, wsEcho) {
	t.Helper()
	h := wsEcho{held: make(chan struct{}, 8), ended: make(chan struct{}, 8)}
	server, err := acp.NewServer(ctx, func(tr acp.Transport, o ...acp.Option) *acp.Connection {
		return acp.NewConnection(tr, h, o...)
	}, options)
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(server)
	t.Cleanup(func() {
		_ = server.Close()
		web.Close()
	})
	return server, web, h
}

const testKey = "dGhlIHNhbXBsZSBub25jZQ==" // RFC 6455 §1.3's example key

// rawSocket is a client that writes frames by hand.
type rawSocket struct {
	t      *testing.T
	conn   net.Conn
	reader *bufio.Reader
}

// upgrade sends an opening handshake with header over a fresh socket; the server's answer.
func upgrade(t *testing.T, web *httptest.Server, path string, header http.Header) (*rawSocket, *http.Response) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(web.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	request, _ := http.NewRequest(http.MethodGet, web.URL+path, nil)
	request.Header = http.Header{"Upgrade": {"websocket"}, "Connection": {"Upgrade"},
		"Sec-Websocket-Key": {testKey}, "Sec-Websocket-Version": {"13"}}
	for name, values := range header {
		request.Header[name] = values
	}
	if err := request.Write(conn); err != nil {
		t.Fatal(err)
	}
	reader := bufio.NewReader(conn)
	response, err := http.ReadResponse(reader, request)
	if err != nil {
		t.Fatal(err)
	}
	return &rawSocket{t: t, conn: conn, reader: reader}, response
}

// open is an accepted socket.
func open(t *testing.T, web *httptest.Server) *rawSocket {
	t.Helper()
	socket, response := upgrade(t, web, "/acp", nil)
	if response.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("the upgrade was answered %s", response.Status)
	}
	return socket
}

// send writes one frame; masked as a client's must be unless told otherwise.
func (s *rawSocket) send(fin bool, opcode byte, payload []byte, masked bool) {
	head := []byte{opcode}
	if fin {
		head[0] |= 0x80
	}
	maskBit := byte(0)
	if masked {
		maskBit = 0x80
	}
	switch n := len(payload); {
	case n < 126:
		head = append(head, maskBit|byte(n))
	case n <= 0xFFFF:
		head = binary.BigEndian.AppendUint16(append(head, maskBit|126), uint16(n))
	default:
		head = binary.BigEndian.AppendUint64(append(head, maskBit|127), uint64(n))
	}
	body := append([]byte(nil), payload...)
	if masked {
		mask := []byte{0x12, 0x34, 0x56, 0x78}
		head = append(head, mask...)
		for i := range body {
			body[i] ^= mask[i%4]
		}
	}
	if _, err := s.conn.Write(append(head, body...)); err != nil {
		s.t.Fatal(err)
	}
}

func (s *rawSocket) text(message string) { s.send(true, 0x1, []byte(message), true) }

// frame reads the server's next frame, which must be unmasked ("A server MUST NOT mask any
// frames that it sends to the client").
func (s *rawSocket) frame() (byte, []byte) {
	s.t.Helper()
	var head [10]byte
	if _, err := readFull(s.reader, head[:2]); err != nil {
		s.t.Fatalf("no frame from the server: %v", err)
	}
	if head[1]&0x80 != 0 {
		s.t.Fatal("the server masked a frame")
	}
	length := uint64(head[1] & 0x7F)
	switch length {
	case 126:
		_, _ = readFull(s.reader, head[2:4])
		length = uint64(binary.BigEndian.Uint16(head[2:4]))
	case 127:
		_, _ = readFull(s.reader, head[2:10])
		length = binary.BigEndian.Uint64(head[2:10])
	}
	payload := make([]byte, length)
	if _, err := readFull(s.reader, payload); err != nil {
		s.t.Fatal(err)
	}
	return head[0] & 0x0F, payload
}

func readFull(r *bufio.Reader, p []byte) (int, error) {
	return io.ReadFull(r, p)
}

// closedWith reads frames until a close and returns its code and reason.
func (s *rawSocket) closedWith() (uint16, string) {
	s.t.Helper()
	for {
		opcode, payload := s.frame()
		if opcode == 0x8 {
			if len(payload) < 2 {
				return 0, ""
			}
			return binary.BigEndian.Uint16(payload), string(payload[2:])
		}
	}
}

func TestTheServerAnswersTheOpeningHandshakeWithTheKeysAcceptAndAConnectionID(t *testing.T) {
	_, web, _ := serveEcho(t, t.Context(), acp.ServeOptions{Route: "a"})
	socket, response := upgrade(t, web, "/acp", nil)
	if response.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("answered %s", response.Status)
	}
	// RFC 6455 §1.3: the key "dGhlIHNhbXBsZSBub25jZQ==" is answered "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=".
	if got := response.Header.Get("Sec-WebSocket-Accept"); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("Sec-WebSocket-Accept %q", got)
	}
	id := response.Header.Get("Acp-Connection-Id")
	random, err := base64.RawURLEncoding.DecodeString(strings.TrimPrefix(id, "a."))
	if !strings.HasPrefix(id, "a.") || err != nil || len(random) != 32 {
		t.Fatalf("Acp-Connection-Id %q: the route, a dot and 256 random bits", id)
	}
	socket.text(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"said":"hi"}}`)
	if opcode, payload := socket.frame(); opcode != 0x1 || string(payload) != `{"jsonrpc":"2.0","id":1,"result":{"said":"hi"}}` {
		t.Fatalf("answer %#x %s", opcode, payload)
	}
}

func TestAHandshakeTheServerCannotTakeIsRefusedWithItsStatus(t *testing.T) {
	_, web, _ := serveEcho(t, t.Context(), acp.ServeOptions{Token: "s3cret", AllowedOrigins: []string{"https://editor.example"}})
	bearer := http.Header{"Authorization": {"Bearer s3cret"}}
	with := func(name, value string) http.Header {
		header := bearer.Clone()
		header[name] = []string{value}
		return header
	}
	cases := []struct {
		name   string
		path   string
		header http.Header
		status int
		has    [2]string
	}{
		{"another path", "/other", bearer, 404, [2]string{}},
		{"no token", "/acp", nil, 401, [2]string{"WWW-Authenticate", "Bearer"}},
		{"a wrong token", "/acp", http.Header{"Authorization": {"Bearer guess"}}, 401, [2]string{}},
		{"a foreign Origin", "/acp", with("Origin", "https://evil.example"), 403, [2]string{}},
		{"no Upgrade: websocket", "/acp", with("Upgrade", "h2c"), 400, [2]string{}},
		{"no Connection: Upgrade", "/acp", with("Connection", "keep-alive"), 400, [2]string{}},
		{"a key that is not 16 bytes", "/acp", with("Sec-Websocket-Key", "c2hvcnQ="), 400, [2]string{}},
		{"version 8", "/acp", with("Sec-Websocket-Version", "8"), 426, [2]string{"Sec-WebSocket-Version", "13"}},
	}
	for _, c := range cases {
		_, response := upgrade(t, web, c.path, c.header)
		if response.StatusCode != c.status {
			t.Errorf("%s: answered %s, want %d", c.name, response.Status, c.status)
		}
		if c.has[0] != "" && response.Header.Get(c.has[0]) != c.has[1] {
			t.Errorf("%s: %s is %q", c.name, c.has[0], response.Header.Get(c.has[0]))
		}
	}
	if _, response := upgrade(t, web, "/acp", with("Origin", "https://editor.example/")); response.StatusCode != 101 {
		t.Errorf("an allowed Origin: %s", response.Status)
	}
	post, _ := http.Post(web.URL+"/acp", "application/json", strings.NewReader(`{}`))
	if post.StatusCode != http.StatusMethodNotAllowed && post.StatusCode != http.StatusUnauthorized {
		t.Errorf("a POST: %s", post.Status)
	}
	// Our client says why, in one line.
	_, err := acp.DialWebSocket(t.Context(), "ws"+strings.TrimPrefix(web.URL, "http")+"/acp", nil, 0)
	if err == nil || !strings.Contains(err.Error(), "401 Unauthorized (Unauthorized)") {
		t.Errorf("our client refused: %v", err)
	}
}

func TestConnectionsPastTheLimitAreRefused429AndAClosedServerRefuses503(t *testing.T) {
	server, web, _ := serveEcho(t, t.Context(), acp.ServeOptions{MaxConnections: 1})
	open(t, web)
	_, response := upgrade(t, web, "/acp", nil)
	if response.StatusCode != http.StatusTooManyRequests || response.Header.Get("Retry-After") != "1" {
		t.Fatalf("the second connection: %s", response.Status)
	}
	_ = server.Close()
	if _, response := upgrade(t, web, "/acp", nil); response.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %s", response.Status)
	}
}

func TestAFragmentedMessageIsJoinedAcrossPingsAndBinaryIsIgnored(t *testing.T) {
	_, web, _ := serveEcho(t, t.Context(), acp.ServeOptions{})
	socket := open(t, web)
	socket.send(true, 0x2, []byte(`{"jsonrpc":"2.0","id":9,"method":"echo"}`), true) // "Binary frames are ignored"
	socket.send(false, 0x1, []byte(`{"jsonrpc":"2.0",`), true)
	socket.send(true, 0x9, []byte("ping?"), true) // a control frame between fragments (§5.4)
	socket.send(false, 0x0, []byte(`"id":2,"method":"echo",`), true)
	socket.send(true, 0x0, []byte(`"params":[1]}`), true)
	if opcode, payload := socket.frame(); opcode != 0xA || string(payload) != "ping?" {
		t.Fatalf("the ping was answered %#x %q", opcode, payload)
	}
	if _, payload := socket.frame(); string(payload) != `{"jsonrpc":"2.0","id":2,"result":[1]}` {
		t.Fatalf("the joined message was answered %s", payload)
	}
}

func TestAMessageOverTheLimitIsAnswered32600AndTheSocketGoesOn(t *testing.T) {
	_, web, _ := serveEcho(t, t.Context(), acp.ServeOptions{FrameLimit: 1000})
	socket := open(t, web)
	big := `{"jsonrpc":"2.0","id":3,"method":"echo","params":"` + strings.Repeat("x", 70000) + `"}`
	socket.send(false, 0x1, []byte(big[:40000]), true)
	socket.send(true, 0x0, []byte(big[40000:]), true)
	_, payload := socket.frame()
	var answer struct {
		ID    int `json:"id"`
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(payload, &answer) != nil || answer.ID != 3 || answer.Error.Code != -32600 {
		t.Fatalf("the long message was answered %s", payload)
	}
	socket.text(`{"jsonrpc":"2.0","id":4,"method":"echo","params":[4]}`)
	if _, payload := socket.frame(); string(payload) != `{"jsonrpc":"2.0","id":4,"result":[4]}` {
		t.Fatalf("after it: %s", payload)
	}
}

func TestFramesThatBreakRFC6455EndTheSocketWithTheirCloseCode(t *testing.T) {
	long := make([]byte, 126)
	cases := []struct {
		name string
		send func(*rawSocket)
		code uint16
	}{
		{"an unmasked frame", func(s *rawSocket) { s.send(true, 0x1, []byte(`{}`), false) }, 1002},
		{"a continuation with no message", func(s *rawSocket) { s.send(true, 0x0, []byte(`{}`), true) }, 1002},
		{"a new message inside a fragmented one", func(s *rawSocket) {
			s.send(false, 0x1, []byte(`{`), true)
			s.send(true, 0x1, []byte(`{}`), true)
		}, 1002},
		{"a ping over 125 bytes", func(s *rawSocket) { s.send(true, 0x9, long, true) }, 1002},
		{"a fragmented ping", func(s *rawSocket) { s.send(false, 0x9, nil, true) }, 1002},
		{"an unknown opcode", func(s *rawSocket) { s.send(true, 0x3, nil, true) }, 1002},
		{"reserved bits", func(s *rawSocket) { s.send(true, 0x41, []byte(`{}`), true) }, 1002},
		{"text that is not UTF-8", func(s *rawSocket) { s.send(true, 0x1, []byte{'"', 0xff, '"'}, true) }, 1007},
	}
	_, web, _ := serveEcho(t, t.Context(), acp.ServeOptions{})
	for _, c := range cases {
		socket := open(t, web)
		c.send(socket)
		if code, reason := socket.closedWith(); code != c.code || reason == "" {
			t.Errorf("%s: closed %d %q, want %d with a reason", c.name, code, reason, c.code)
		}
	}
}

func TestTheClientsCloseIsAnsweredAndItsRunningRequestsCancelled(t *testing.T) {
	server, web, handler := serveEcho(t, t.Context(), acp.ServeOptions{})
	socket := open(t, web)
	socket.text(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	<-handler.held
	socket.send(true, 0x8, []byte{0x03, 0xE8}, true)
	if code, _ := socket.closedWith(); code != 1000 {
		t.Fatalf("the close was answered %d", code)
	}
	select {
	case <-handler.ended: // "On disconnect, the server cleans up the connection"
	case <-time.After(5 * time.Second):
		t.Fatal("the held request was not cancelled when the client left")
	}
	if _, err := socket.reader.ReadByte(); err == nil {
		t.Fatal("the server did not close the socket after the close handshake")
	}
	waitFor(t, func() bool { return server.Connections() == 0 })
}

func TestTheServersContextEndingClosesEveryConnection(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	server, web, handler := serveEcho(t, ctx, acp.ServeOptions{})
	sockets := []*rawSocket{open(t, web), open(t, web)}
	for _, socket := range sockets {
		socket.text(`{"jsonrpc":"2.0","id":7,"method":"hold"}`)
		<-handler.held
	}
	cancel()
	for _, socket := range sockets {
		<-handler.ended
		_, payload := socket.frame() // the held request is answered -32800 before the close
		if !strings.Contains(string(payload), `"code":-32800`) {
			t.Fatalf("the held request was answered %s", payload)
		}
		if code, _ := socket.closedWith(); code != 1000 {
			t.Fatalf("closed with %d", code)
		}
	}
	waitFor(t, func() bool { return server.Connections() == 0 })
}

func TestServeOptionsAreChecked(t *testing.T) {
	for _, options := range []acp.ServeOptions{{Route: "A"}, {Route: "a.b"}, {MaxConnections: -1}} {
		if _, err := acp.NewServer(t.Context(), nil, options); err == nil {
			t.Errorf("%+v accepted", options)
		}
	}
}
