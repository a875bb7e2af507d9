package tests

// A WebSocket server for the remote client's tests: the Go runtime has none (it serves stdio),
// so this one is the test's own, RFC 6455's server side in a few lines: the upgrade answered,
// client frames unmasked, ours written unmasked. Drop closes every socket as a killed
// process would leave it (no close frame).

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	acp "acp-protocol-sdk"
)

type wsServer struct {
	*httptest.Server
	mu    sync.Mutex
	conns []net.Conn
}

// serveWebSocket serves each WebSocket opened at /acp with serve (its transport); the server
// is closed when the test ends.
func serveWebSocket(t *testing.T, serve func(acp.Transport)) *wsServer {
	s := &wsServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "websocket" {
			http.Error(w, "a WebSocket only", http.StatusBadRequest)
			return
		}
		conn, buffered, err := http.NewResponseController(w).Hijack()
		if err != nil {
			return
		}
		sum := sha1.Sum([]byte(r.Header.Get("Sec-WebSocket-Key") + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
		_, _ = conn.Write([]byte("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Accept: " + base64.StdEncoding.EncodeToString(sum[:]) + "\r\n\r\n"))
		s.mu.Lock()
		s.conns = append(s.conns, conn)
		s.mu.Unlock()
		serve(&wsServerTransport{conn: conn, reader: buffered.Reader})
	}))
	t.Cleanup(func() {
		s.Drop()
		s.Close()
	})
	return s
}

// URL is the ws:// URL of /acp.
func (s *wsServer) URL() string {
	return "ws" + strings.TrimPrefix(s.Server.URL, "http") + "/acp"
}

// Drop ends every socket without a close frame, as the death of the process would.
func (s *wsServer) Drop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, conn := range s.conns {
		_ = conn.Close()
	}
	s.conns = nil
}

type wsServerTransport struct {
	conn    net.Conn
	reader  *bufio.Reader
	writeMu sync.Mutex
}

// ReadFrame returns the next text frame (the client's are unfragmented); a close is io.EOF.
func (t *wsServerTransport) ReadFrame() ([]byte, error) {
	for {
		var head [2]byte
		if _, err := io.ReadFull(t.reader, head[:]); err != nil {
			return nil, io.EOF
		}
		length := uint64(head[1] & 0x7F)
		switch length {
		case 126:
			var n [2]byte
			if _, err := io.ReadFull(t.reader, n[:]); err != nil {
				return nil, io.EOF
			}
			length = uint64(binary.BigEndian.Uint16(n[:]))
		case 127:
			var n [8]byte
			if _, err := io.ReadFull(t.reader, n[:]); err != nil {
				return nil, io.EOF
			}
			length = binary.BigEndian.Uint64(n[:])
		}
		var mask [4]byte
		payload := make([]byte, length)
		if _, err := io.ReadFull(t.reader, mask[:]); err != nil {
			return nil, io.EOF
		}
		if _, err := io.ReadFull(t.reader, payload); err != nil {
			return nil, io.EOF
		}
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
		switch head[0] & 0x0F {
		case 0x1:
			return payload, nil
		case 0x8:
			return nil, io.EOF
		}
	}
}

func (t *wsServerTransport) WriteFrame(frame []byte) error {
	return t.write(0x1, frame)
}

// write sends one unmasked frame of opcode.
func (t *wsServerTransport) write(opcode byte, payload []byte) error {
	out := []byte{0x80 | opcode}
	switch n := len(payload); {
	case n < 126:
		out = append(out, byte(n))
	case n <= 0xFFFF:
		out = binary.BigEndian.AppendUint16(append(out, 126), uint16(n))
	default:
		out = binary.BigEndian.AppendUint64(append(out, 127), uint64(n))
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	_, err := t.conn.Write(append(out, payload...))
	return err
}

func (t *wsServerTransport) Close() error {
	return t.conn.Close()
}

// The client reads each length form (7-bit, 16-bit, 64-bit), skips binary messages (ACP: "Binary
// frames are ignored"), answers a ping with its pong, drops a message over the frame limit with
// its head kept and reads on, and its own frames arrive whole at the server.
func TestTheWebSocketClientReadsEveryLengthFormAndAnswersPings(t *testing.T) {
	pong := make(chan string, 1)
	received := make(chan string, 1)
	server := serveWebSocket(t, func(transport acp.Transport) {
		ws := transport.(*wsServerTransport)
		_ = ws.write(0x9, []byte("are you there"))
		_ = ws.write(0x2, []byte("binary"))
		for _, size := range []int{10, 300, 70000, 200001} {
			_ = ws.WriteFrame([]byte(`"` + strings.Repeat("x", size-2) + `"`))
		}
		_ = ws.WriteFrame([]byte(`"last"`))
		for {
			var head [2]byte
			if _, err := io.ReadFull(ws.reader, head[:]); err != nil {
				return
			}
			if head[0]&0x0F == 0xA {
				var mask [4]byte
				payload := make([]byte, head[1]&0x7F)
				_, _ = io.ReadFull(ws.reader, mask[:])
				_, _ = io.ReadFull(ws.reader, payload)
				for i := range payload {
					payload[i] ^= mask[i%4]
				}
				pong <- string(payload)
				frame, err := ws.ReadFrame()
				if err == nil {
					received <- string(frame)
				}
				return
			}
		}
	})
	client, err := acp.DialWebSocket(t.Context(), server.URL(), nil, 100000)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	for _, size := range []int{10, 300, 70000} {
		frame, err := client.ReadFrame()
		if err != nil || len(frame) != size {
			t.Fatalf("a message of %d bytes read as %d bytes: %v", size, len(frame), err)
		}
	}
	_, err = client.ReadFrame()
	var tooLong *acp.FrameTooLong
	if !errors.As(err, &tooLong) || tooLong.Size != 200001 || !strings.HasPrefix(string(tooLong.Head), `"xxx`) {
		t.Fatalf("a message over the limit: %v", err)
	}
	if frame, err := client.ReadFrame(); err != nil || string(frame) != `"last"` {
		t.Fatalf("after it: %q %v", frame, err)
	}
	if got := <-pong; got != "are you there" {
		t.Fatalf("the pong carried %q", got)
	}
	big := `"` + strings.Repeat("y", 70000) + `"`
	if err := client.WriteFrame([]byte(big)); err != nil {
		t.Fatal(err)
	}
	if got := <-received; got != big {
		t.Fatalf("the server read %d bytes, want %d", len(got), len(big))
	}
}
