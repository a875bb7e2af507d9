package acp

// Layer: transport (RFC 6455's framing, both ends: the client's socket (ws_client.go) and the
// server's (ws_server.go) are one WebSocketTransport. ACP: "All messages are WebSocket text
// frames containing JSON-RPC. Binary frames are ignored".)

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"sync"
	"time"
	"unicode/utf8"
)

const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

// Close codes (RFC 6455 §7.4.1).
const (
	closeNormal      = 1000
	closeProtocol    = 1002
	closeInvalidData = 1007
)

// WebSocketTransport is a Transport over one WebSocket, either end: each frame one text message.
type WebSocketTransport struct {
	conn   io.ReadWriteCloser
	reader *bufio.Reader
	limit  int
	// server: we are the server end, so "a client MUST mask all frames that it sends to the
	// server" and "a server MUST NOT mask any frames that it sends to the client" (§5.1).
	server bool
	// stall, when set, is how long one write may wait for the peer to read (server end).
	stall time.Duration

	writeMu   sync.Mutex
	closeOnce sync.Once
	closed    bool // under writeMu: a close frame was sent
}

// ErrWebSocketProtocol is the cause of a socket ended because the peer broke RFC 6455 (an
// unmasked client frame, a control frame too long or fragmented, an unknown opcode, a text
// message that is not UTF-8, …): the close frame sent says which rule.
var ErrWebSocketProtocol = errors.New("acp: the WebSocket peer broke RFC 6455")

type wsFrame struct {
	fin     bool
	opcode  byte
	payload []byte // its first limit+1 bytes at most
	length  uint64
}

// ReadFrame returns the next text message, its fragments joined; binary messages are ignored,
// a ping is answered with a pong, and the peer's close frame (or the socket's end) is io.EOF. A
// message over the limit is a *FrameTooLong (its first bytes kept), after which reading goes on.
func (t *WebSocketTransport) ReadFrame() ([]byte, error) {
	var message []byte
	var size int64
	inMessage, text, tooLong := false, false, false
	for {
		f, err := t.readFrame()
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				err = io.EOF
			}
			return nil, err
		}
		switch f.opcode {
		case opPing:
			_ = t.write(opPong, f.payload) // "Upon receipt of a Ping frame, an endpoint MUST send a Pong frame in response" (§5.5.2)
			continue
		case opPong:
			continue
		case opClose:
			return nil, t.closeReceived(f.payload)
		case opContinuation:
			if !inMessage {
				return nil, t.fail(closeProtocol, "a continuation frame with no message begun")
			}
		default: // text or binary: the first frame of a message
			if inMessage {
				return nil, t.fail(closeProtocol, "a new message before the last one's final fragment")
			}
			inMessage, text, tooLong, message, size = true, f.opcode == opText, false, nil, 0
		}
		size += int64(f.length)
		if text && !tooLong {
			switch {
			case size > int64(t.limit):
				tooLong = true
				message = append(message, f.payload[:min(len(f.payload), max(0, frameHead-len(message)))]...)
			case message == nil:
				message = f.payload // the one frame of most messages: no copy
			default:
				message = append(message, f.payload...)
			}
		}
		if !f.fin {
			continue
		}
		inMessage = false
		switch {
		case !text:
			continue // "Binary frames are ignored"
		case tooLong:
			return nil, &FrameTooLong{Limit: t.limit, Size: size, Head: message}
		case !utf8.Valid(message):
			// "When an endpoint is to interpret a byte stream as UTF-8 but finds that the byte
			// stream is not, in fact, a valid UTF-8 stream, that endpoint MUST _Fail the
			// WebSocket Connection_" (§8.1), with 1007.
			return nil, t.fail(closeInvalidData, "a text message that is not UTF-8")
		}
		if message == nil {
			message = []byte{}
		}
		return message, nil
	}
}

// readFrame reads one frame whole, unmasked; a frame over the limit is read and dropped, its
// first limit+1 bytes kept. A frame that breaks a rule fails the connection.
func (t *WebSocketTransport) readFrame() (f wsFrame, err error) {
	var head [10]byte
	if _, err = io.ReadFull(t.reader, head[:2]); err != nil {
		return
	}
	f.fin, f.opcode = head[0]&0x80 != 0, head[0]&0x0F
	masked := head[1]&0x80 != 0
	f.length = uint64(head[1] & 0x7F)
	switch {
	case head[0]&0x70 != 0: // "MUST be 0 unless an extension is negotiated" (§5.2): we negotiate none
		return f, t.fail(closeProtocol, "reserved bits set")
	case f.opcode > opBinary && f.opcode < opClose || f.opcode > opPong:
		return f, t.fail(closeProtocol, fmt.Sprintf("unknown opcode %#x", f.opcode))
	case f.opcode >= opClose && (!f.fin || f.length > 125):
		// "All control frames MUST have a payload length of 125 bytes or less and MUST NOT be
		// fragmented" (§5.5).
		return f, t.fail(closeProtocol, "a control frame fragmented or over 125 bytes")
	case t.server && !masked:
		// "The server MUST close the connection upon receiving a frame that is not masked" (§5.1).
		return f, t.fail(closeProtocol, "a client frame that is not masked")
	case !t.server && masked:
		// "A client MUST close a connection if it detects a masked frame" (§5.1).
		return f, t.fail(closeProtocol, "a server frame that is masked")
	}
	switch f.length {
	case 126:
		if _, err = io.ReadFull(t.reader, head[2:4]); err != nil {
			return
		}
		f.length = uint64(binary.BigEndian.Uint16(head[2:4]))
	case 127:
		if _, err = io.ReadFull(t.reader, head[2:10]); err != nil {
			return
		}
		if f.length = binary.BigEndian.Uint64(head[2:10]); f.length>>63 != 0 {
			return f, t.fail(closeProtocol, "a 64-bit length with its most significant bit set") // §5.2
		}
	}
	var mask [4]byte
	if masked {
		if _, err = io.ReadFull(t.reader, mask[:]); err != nil {
			return
		}
	}
	keep := min(f.length, uint64(t.limit)+1)
	f.payload = make([]byte, keep)
	if _, err = io.ReadFull(t.reader, f.payload); err != nil {
		return
	}
	if _, err = io.CopyN(io.Discard, t.reader, int64(f.length-keep)); err != nil {
		return
	}
	if masked {
		for i := range f.payload {
			f.payload[i] ^= mask[i%4]
		}
	}
	return f, nil
}

// closeReceived answers the peer's close frame with one of the same code (§5.5.1: "the endpoint
// MUST send a Close frame in response") and ends reading.
func (t *WebSocketTransport) closeReceived(payload []byte) error {
	if len(payload) == 1 { // a code is two bytes
		return t.fail(closeProtocol, "a close frame of one byte")
	}
	_ = t.write(opClose, payload[:min(len(payload), 2)])
	return io.EOF
}

// fail sends a close frame with code and reason (§7.1.7 "_Fail the WebSocket Connection_") and
// returns the error reading ends with.
func (t *WebSocketTransport) fail(code uint16, reason string) error {
	_ = t.write(opClose, binary.BigEndian.AppendUint16(nil, code), []byte(reason)...)
	return fmt.Errorf("%w: %s", ErrWebSocketProtocol, reason)
}

// WriteFrame sends frame as one text message (masked from the client end: §5.3).
func (t *WebSocketTransport) WriteFrame(frame []byte) error {
	return t.write(opText, frame)
}

// write sends one final frame of opcode, its payload the parts given, in one write.
func (t *WebSocketTransport) write(opcode byte, payload []byte, more ...byte) error {
	n := len(payload) + len(more)
	out := make([]byte, 0, 14+n)
	out = append(out, 0x80|opcode)
	maskBit := byte(0x80)
	if t.server {
		maskBit = 0
	}
	switch {
	case n < 126:
		out = append(out, maskBit|byte(n))
	case n <= 0xFFFF:
		out = binary.BigEndian.AppendUint16(append(out, maskBit|126), uint16(n))
	default:
		out = binary.BigEndian.AppendUint64(append(out, maskBit|127), uint64(n))
	}
	if t.server {
		out = append(append(out, payload...), more...)
	} else {
		// "The masking key needs to be unpredictable" (§10.3): math/rand/v2's generator is
		// ChaCha8, seeded from the system's randomness.
		var mask [4]byte
		binary.LittleEndian.PutUint32(mask[:], mrand.Uint32())
		out = append(out, mask[:]...)
		start := len(out)
		out = append(append(out, payload...), more...)
		for i := range out[start:] {
			out[start+i] ^= mask[i%4]
		}
	}
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	if t.closed {
		return ErrConnectionClosed
	}
	if opcode == opClose {
		t.closed = true // "The application MUST NOT send any more data frames after sending a Close frame" (§5.5.1)
	}
	conn, deadline := t.conn.(net.Conn)
	if deadline = deadline && t.stall > 0; deadline {
		_ = conn.SetWriteDeadline(time.Now().Add(t.stall))
	}
	_, err := t.conn.Write(out)
	if err != nil && deadline {
		_ = t.conn.Close() // a peer that reads nothing for the stall time is ended
	}
	return err
}

// Close sends a close frame (1000, normal closure) and closes the socket; a ReadFrame under way
// returns.
func (t *WebSocketTransport) Close() error {
	var err error
	t.closeOnce.Do(func() {
		_ = t.write(opClose, binary.BigEndian.AppendUint16(nil, closeNormal))
		err = t.conn.Close()
	})
	return err
}
