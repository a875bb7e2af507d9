package acp

// Layer: dispatcher (what happens to running requests once the peer's input ends).

import "time"

// DefaultEOFGrace is how long, once the peer's input ends, the requests it sent before run on
// and are answered (half-close: `printf … | agent`), as in the Python and TypeScript runtimes;
// what still runs then is cancelled (answered -32800) by the close.
const DefaultEOFGrace = 5 * time.Second

// EOFGrace sets the half-close grace (DefaultEOFGrace unless set; 0 closes at once).
func EOFGrace(d time.Duration) Option {
	return func(c *Connection) {
		c.eofGrace = max(0, d)
	}
}

// endOfInput is the peer's end of stream: "every pending caller fails promptly" (no answer can
// come, and our new requests fail at once), while the peer's requests already read run on for
// up to the grace, and are answered, before the connection closes. Called by the read loop,
// which returns after it (so Close, waiting for the read loop, ends the wait at once).
func (c *Connection) endOfInput() {
	c.mu.Lock()
	if c.closing {
		c.mu.Unlock()
		return
	}
	c.inputEnded = ErrPeerClosed
	pending := c.pending
	c.pending = map[string]pendingCall{}
	c.mu.Unlock()
	for _, call := range pending {
		call.answer <- reply{err: ErrPeerClosed}
	}
	answered := make(chan struct{})
	go func() {
		c.handlers.Wait()
		close(answered)
	}()
	grace := time.NewTimer(c.eofGrace)
	select {
	case <-answered:
	case <-grace.C:
	case <-c.base.Done(): // Close was called meanwhile
	}
	grace.Stop()
	c.shutdown(ErrPeerClosed)
	<-answered // the close cancels what still runs; handlers return once their ctx ends
}
