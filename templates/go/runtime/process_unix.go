//go:build unix

package acp

// Layer: transport (a spawned program's process group on Unix).

import (
	"errors"
	"os/exec"
	"syscall"
)

const (
	terminate = syscall.SIGTERM
	kill      = syscall.SIGKILL
)

// ownGroup starts cmd in a session and process group of its own: a Ctrl-C in the terminal
// reaches the parent only, and the group can be ended as one.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
}

func (p *ProcessTransport) signalGroup(signal syscall.Signal) {
	_ = syscall.Kill(-p.cmd.Process.Pid, signal)
}

// groupAlive says whether a process of the child's group is left (called once the child has
// been waited for, so it is not itself counted as a zombie).
func (p *ProcessTransport) groupAlive() bool {
	err := syscall.Kill(-p.cmd.Process.Pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
