//go:build !unix

package transport

import (
	"os/exec"
	"time"
)

// setProcessGroup does nothing where there are no Unix process groups.
func setProcessGroup(*exec.Cmd) bool { return false }

// terminate has no gentle form off Unix (Windows has no SIGTERM), so it
// kills, like the official Go SDK does there.
func terminate(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }

// kill stops the server for good.
func kill(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }

// stopGroup does nothing where there are no Unix process groups.
func stopGroup(*exec.Cmd, bool, time.Duration) {}
