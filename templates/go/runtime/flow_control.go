package acp

// Layer: dispatcher (how many of the peer's requests are handled at once).

import "sync"

// DefaultMaxInFlight is how many of the peer's requests a connection handles at once before it
// stops reading (flow control): a flood of requests cannot make its memory grow without bound.
const DefaultMaxInFlight = 10_000

// Option configures a connection (NewConnection, and each edition's Connect…).
type Option func(*Connection)

// MaxInFlight sets how many of the peer's requests are handled at once (DefaultMaxInFlight
// unless set, at least 1): at that many, reading pauses, and resumes once they are down to
// half. A request counts until its answer is written, so a peer that does not read our answers
// stops being read too. Notifications pause reading while 256 wait to be handled.
func MaxInFlight(n int) Option {
	return func(c *Connection) {
		c.flow.limit = max(1, n)
	}
}

// flowGate counts the peer's requests being handled; the read loop waits at it while it is
// full (from the limit until half of it).
type flowGate struct {
	mu      sync.Mutex
	limit   int
	running int
	room    chan struct{} // non-nil while paused: closed when there is room again
}

// enter counts one more request, first waiting while the gate is full; false if done ended
// the wait.
func (g *flowGate) enter(done <-chan struct{}) bool {
	g.mu.Lock()
	if g.running >= g.limit && g.room == nil {
		g.room = make(chan struct{})
	}
	room := g.room
	g.mu.Unlock()
	if room != nil {
		select {
		case <-room:
		case <-done:
			return false
		}
	}
	g.mu.Lock()
	g.running++
	g.mu.Unlock()
	return true
}

// leave counts one request less, and lets reading on once half of the limit is reached.
func (g *flowGate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running--
	if g.room != nil && g.running <= g.limit/2 {
		close(g.room)
		g.room = nil
	}
}

// InFlight is how many of the peer's requests are being handled (or their answers written).
func (c *Connection) InFlight() int {
	c.flow.mu.Lock()
	defer c.flow.mu.Unlock()
	return c.flow.running
}
