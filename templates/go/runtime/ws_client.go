package acp

// Layer: transport (the client of ACP's WebSocket transport: "All messages are WebSocket text
// frames containing JSON-RPC. Binary frames are ignored"; the Python runtime's
// transports/ws_client.py and the TypeScript runtime's transports/ws_client.ts). RFC 6455 on
// the standard library: net/http makes the upgrade (proxies and TLS as for any request),
// ws_frames.go the frames.

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha1"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// websocketGUID is RFC 6455 §1.3's: the server's Sec-WebSocket-Accept is the base64 of the
// SHA-1 of the key and it.
const websocketGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// acceptKey is the Sec-WebSocket-Accept that answers key (RFC 6455 §4.2.2).
func acceptKey(key string) string {
	sum := sha1.Sum([]byte(key + websocketGUID))
	return base64.StdEncoding.EncodeToString(sum[:])
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
		body, _ := io.ReadAll(io.LimitReader(response.Body, 300))
		_ = response.Body.Close()
		reason, _, _ := strings.Cut(strings.TrimSpace(string(body)), "\n")
		if reason != "" {
			reason = " (" + reason + ")"
		}
		return nil, fmt.Errorf("%s: the WebSocket was refused: %s%s", url, response.Status, reason)
	}
	if response.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
		_ = conn.Close()
		return nil, fmt.Errorf("%s: the server's Sec-WebSocket-Accept does not answer our key", url)
	}
	if frameLimit <= 0 {
		frameLimit = DefaultFrameLimit
	}
	return &WebSocketTransport{conn: conn, reader: bufio.NewReaderSize(conn, 64<<10), limit: frameLimit}, nil
}
