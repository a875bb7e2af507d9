package acp

// Layer: transport (a spawned program, ended with its process group).

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Process timings: how long a child has to exit after its stdin closes, how long after each
// signal to its group, and how long its stdout is still read after it exits.
const (
	ExitTimeout = 2 * time.Second
	KillTimeout = time.Second
	exitGrace   = 200 * time.Millisecond
)

// ProcessTransport is a spawned program's stdin and stdout as a transport, and its whole
// lifetime: the program runs in a process group of its own (a session, where the platform has
// them), and closing the transport ends the group. A child never outlives its parent's interest.
type ProcessTransport struct {
	*StreamTransport
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	exited chan struct{} // closed once the child has exited and been waited for

	mu      sync.Mutex
	stopCtx func() bool // ends the watch on the caller's ctx

	closeOnce sync.Once
	done      chan struct{} // closed once the watcher has ended
}

// Spawn starts program with args as an NDJSON transport; see SpawnCommand (which takes a
// Framing: acp.SpawnCommand(ctx, exec.Command("pylsp"), acp.ContentLength)).
func Spawn(ctx context.Context, program string, args ...string) (*ProcessTransport, error) {
	cmd := exec.Command(program, args...)
	cmd.Stderr = os.Stderr
	return SpawnCommand(ctx, cmd)
}

// SpawnCommand starts cmd (its Stdin and Stdout must be unset; Dir, Env and Stderr are its own)
// in a process group of its own, speaking NDJSON on its stdin and stdout unless the options say
// otherwise (ContentLength for an LSP-framed program). Close, or the end of ctx, ends it: stdin
// is closed, the child has ExitTimeout to exit, then its group is sent SIGTERM and, KillTimeout
// later, SIGKILL; what is left of the group after the child exits (a grandchild that ignores
// EOF) is ended the same way. Once the child exits, its stdout is read a moment more and then
// ended, even if a grandchild still holds it.
func SpawnCommand(ctx context.Context, cmd *exec.Cmd, options ...TransportOption) (*ProcessTransport, error) {
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdout, childOut, err := os.Pipe()
	if err != nil {
		closeAll(childIn, stdin)
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = childIn, childOut
	if _, traced := os.LookupEnv(TraceEnvironment); traced && cmd.Env == nil {
		// The child does not inherit ACP_TRACE (our own recording of the connection,
		// wire_trace.go): two recordings of one conversation in one file would garble it. Set
		// it in cmd.Env to record the child too.
		cmd.Env = withoutTrace(os.Environ())
	}
	ownGroup(cmd)
	err = cmd.Start()
	closeAll(childIn, childOut) // the child's ends: the child holds them now
	if err != nil {
		closeAll(stdin, stdout)
		return nil, err
	}
	p := &ProcessTransport{
		StreamTransport: NewStreamTransport(stdout, stdin, options...),
		cmd:             cmd,
		stdin:           stdin,
		stdout:          stdout,
		exited:          make(chan struct{}),
		done:            make(chan struct{}),
	}
	go p.watch()
	p.mu.Lock()
	p.stopCtx = context.AfterFunc(ctx, func() { _ = p.Close() })
	p.mu.Unlock()
	return p, nil
}

// Pid is the child's process id (and its group's).
func (p *ProcessTransport) Pid() int {
	return p.cmd.Process.Pid
}

// Exited is closed once the child has exited.
func (p *ProcessTransport) Exited() <-chan struct{} {
	return p.exited
}

// watch waits for the child, then ends stdout after the grace (its last output read) unless
// Close ends it first.
func (p *ProcessTransport) watch() {
	defer close(p.done)
	_ = p.cmd.Wait()
	close(p.exited)
	grace := time.NewTimer(exitGrace)
	defer grace.Stop()
	<-grace.C
	_ = p.stdout.Close()
}

// Close ends the child and its process group (see SpawnCommand) and returns once the child has
// exited and been waited for. Safe to call more than once and concurrently: each call returns
// once it is over.
func (p *ProcessTransport) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		stop := p.stopCtx
		p.mu.Unlock()
		stop()
		_ = p.stdin.Close()
		if !p.waitExit(ExitTimeout) {
			p.signalGroup(terminate)
			if !p.waitExit(KillTimeout) {
				p.signalGroup(kill)
				<-p.exited
			}
		}
		if p.groupAlive() {
			p.signalGroup(terminate)
			if !p.waitGroup(KillTimeout) {
				p.signalGroup(kill)
				p.waitGroup(KillTimeout)
			}
		}
		_ = p.StreamTransport.Close()
		<-p.done
	})
	return nil
}

func (p *ProcessTransport) waitExit(timeout time.Duration) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
		return false
	}
}

func (p *ProcessTransport) waitGroup(timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); {
		if !p.groupAlive() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return !p.groupAlive()
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		_ = f.Close()
	}
}

// withoutTrace is environ without ACP_TRACE.
func withoutTrace(environ []string) []string {
	kept := environ[:0:0]
	for _, variable := range environ {
		if !strings.HasPrefix(variable, TraceEnvironment+"=") {
			kept = append(kept, variable)
		}
	}
	return kept
}
