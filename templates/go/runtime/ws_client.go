package acp

// Layer: transport (the client of ACP's WebSocket transport: "All messages are WebSocket text
// frames containing JSON-RPC. Binary frames are ignored"; the Python runtime's
// transports/ws_client.py and the TypeScript runtime's transports/ws_client.ts). RFC 6455 on
// the standard library: net/http makes the upgrade (proxies and TLS as for any request), this
// file the frames.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"sync"
)

// websocketGUID is RFC 6455 §1.3's: the server's Sec-WebSocket-Accept is the base64 of the
// SHA-1 of the key and it.
const websocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

const (
	opContinuation = 0x0
	opText         = 0x1
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

// WebSocketTransport is a Transport over one client WebSocket: each frame a text message.
type WebSocketTransport struct {
	conn   io.ReadWriteCloser
	reader *bufio.Reader
	limit  int

	writeMu   sync.Mutex
	closeOnce sync.Once
	closed    bool // under writeMu: a close frame was sent
}

// upgrader is an http.Transport that speaks HTTP/1.1 only (a WebSocket upgrade is an HTTP/1.1
// request; HTTP/2 by ALPN would refuse it).
var upgrader = &http.Transport{
	Proxy:        http.ProxyFromEnvironment,
	TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
}

// DialWebSocket opens a WebSocket to url (ws:// or wss://) with header sent on the upgrade
// request; frames longer than frameLimit (DefaultFrameLimit when 0) are dropped as they stream.
func DialWebSocket(ctx context.Context, url string, header http.Header, frameLimit int) (*WebSocketTransport, error) {
	target := url
	switch {
	case strings.HasPrefix(url, "ws://"):
		target = "http://" + url[len("ws://"):]
	case strings.HasPrefix(url, "wss://"):
		target = "https://" + url[len("wss://"):]
	default:
		return nil, fmt.Errorf("a WebSocket URL starts with ws:// or wss://, not %q", url)
	}
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return nil, err
	}
	for name, values := range header {
		request.Header[name] = values
	}
	var nonce [16]byte
	_, _ = rand.Read(nonce[:])
	key := base64.StdEncoding.EncodeToString(nonce[:])
	request.Header.Set("Upgrade", "websocket")
	request.Header.Set("Connection", "Upgrade")
	request.Header.Set("Sec-WebSocket-Key", key)
	request.Header.Set("Sec-WebSocket-Version", "13")
	response, err := upgrader.RoundTrip(request)
	if err != nil {
		return nil, fmt.Errorf("%s: the WebSocket was refused: %w", url, err)
	}
	conn, ok := response.Body.(io.ReadWriteCloser)
	if response.StatusCode != http.StatusSwitchingProtocols || !ok {
		_ = response.Body.Close()
		return nil, fmt.Errorf("%s: the WebSocket was refused: %s", url, response.Status)
	}
	sum := sha1.Sum([]byte(key + websocketGUID))
	if response.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		_ = conn.Close()
		return nil, fmt.Errorf("%s: the server's Sec-WebSocket-Accept does not answer our key", url)
	}
	if frameLimit <= 0 {
		frameLimit = DefaultFrameLimit
	}
	return &WebSocketTransport{conn: conn, reader: bufio.NewReaderSize(conn, 64<<10), limit: frameLimit}, nil
}

// ReadFrame returns the next text message; binary messages are ignored, a ping is answered with
// a pong, and the server's close frame (or the socket's end) is io.EOF.
func (t *WebSocketTransport) ReadFrame() ([]byte, error) {
	var message []byte
	var size int64
	text, tooLong := false, false
	for {
		fin, opcode, payload, length, err := t.readFrame()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return nil, err
		}
		switch opcode {
		case opPing:
			_ = t.write(opPong, payload)
			continue
		case opPong:
			continue
		case opClose:
			_ = t.write(opClose, payload) // RFC 6455 §5.5.1: answer with a close
			return nil, io.EOF
		case opContinuation:
		default: // the first frame of a message: text, or binary (ignored)
			text, tooLong, message, size = opcode == opText, false, message[:0], 0
		}
		size += int64(length)
		if text && !tooLong {
			if size > int64(t.limit) {
				tooLong = true
				message = append(message, payload[:min(len(payload), max(0, frameHead-len(message)))]...)
			} else {
				message = append(message, payload...)
			}
		}
		if !fin || !text {
			continue
		}
		if tooLong {
			return nil, &FrameTooLong{Limit: t.limit, Size: size, Head: message}
		}
		return message, nil
	}
}

// readFrame reads one frame whole (unmasking it if the server masked it); a frame over the
// limit is read and dropped, its first frameHead bytes kept.
func (t *WebSocketTransport) readFrame() (fin bool, opcode byte, payload []byte, length uint64, err error) {
	var head [14]byte
	if _, err = io.ReadFull(t.reader, head[:2]); err != nil {
		return
	}
	fin, opcode = head[0]&0x80 != 0, head[0]&0x0F
	masked := head[1]&0x80 != 0
	length = uint64(head[1] & 0x7F)
	switch length {
	case 126:
		if _, err = io.ReadFull(t.reader, head[2:4]); err != nil {
			return
		}
		length = uint64(binary.BigEndian.Uint16(head[2:4]))
	case 127:
		if _, err = io.ReadFull(t.reader, head[2:10]); err != nil {
			return
		}
		length = binary.BigEndian.Uint64(head[2:10])
	}
	var mask [4]byte
	if masked {
		if _, err = io.ReadFull(t.reader, mask[:]); err != nil {
			return
		}
	}
	keep := min(length, uint64(t.limit)+1)
	payload = make([]byte, keep)
	if _, err = io.ReadFull(t.reader, payload); err != nil {
		return
	}
	if _, err = io.CopyN(io.Discard, t.reader, int64(length-keep)); err != nil {
		return
	}
	if masked {
		for i := range payload {
			payload[i] ^= mask[i%4]
		}
	}
	return
}

// WriteFrame sends frame as one text message, masked as a client's must be (RFC 6455 §5.3).
func (t *WebSocketTransport) WriteFrame(frame []byte) error {
	return t.write(opText, frame)
}

func (t *WebSocketTransport) write(opcode byte, payload []byte) error {
	out := make([]byte, 0, 14+len(payload))
	out = append(out, 0x80|opcode)
	switch n := len(payload); {
	case n < 126:
		out = append(out, 0x80|byte(n))
	case n <= 0xFFFF:
		out = append(out, 0x80|126)
		out = binary.BigEndian.AppendUint16(out, uint16(n))
	default:
		out = append(out, 0x80|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	// "The masking key needs to be unpredictable" (RFC 6455 §10.3): math/rand/v2's generator
	// is ChaCha8, seeded from the system's randomness.
	var mask [4]byte
	binary.LittleEndian.PutUint32(mask[:], mrand.Uint32())
	out = append(out, mask[:]...)
	for i, b := range payload {
		out = append(out, b^mask[i%4])
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if t.closed {
		return ErrConnectionClosed
	}
	if opcode == opClose {
		t.closed = true
	}
	_, err := t.conn.Write(out)
	return err
}

// Close sends a close frame (1000, normal closure) and closes the socket; a ReadFrame under way
// returns.
func (t *WebSocketTransport) Close() error {
	var err error
	t.closeOnce.Do(func() {
		_ = t.write(opClose, []byte{0x03, 0xE8})
		err = t.conn.Close()
	})
	return err
}
