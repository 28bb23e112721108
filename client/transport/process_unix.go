//go:build unix

package transport

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup starts the server in a process group of its own when the
// caller left SysProcAttr alone, so that terminate and kill reach helper
// processes it spawned. It reports whether it did.
func setProcessGroup(cmd *exec.Cmd) bool {
	if cmd.SysProcAttr != nil {
		return false
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return true
}

// terminate asks the server (and its group) to stop.
func terminate(cmd *exec.Cmd, group bool) { signal(cmd, group, syscall.SIGTERM) }

// kill stops the server (and its group) for good.
func kill(cmd *exec.Cmd, group bool) { signal(cmd, group, syscall.SIGKILL) }

func signal(cmd *exec.Cmd, group bool, sig syscall.Signal) {
	if group {
		// The group id is the leader's pid; it stays valid while any member
		// lives, so this cannot reach an unrelated process.
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
	_ = cmd.Process.Signal(sig)
}

// stopGroup ends what is left of the server's process group after the
// server itself has exited: helpers it spawned would otherwise outlive the
// connection. They get SIGTERM, up to grace to go, then SIGKILL.
func stopGroup(cmd *exec.Cmd, group bool, grace time.Duration) {
	if !group {
		return
	}
	pgid := -cmd.Process.Pid
	if syscall.Kill(pgid, 0) != nil {
		return // nobody left
	}
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
		if syscall.Kill(pgid, 0) != nil {
			return
		}
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
}
