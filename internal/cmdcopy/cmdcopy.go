// Package cmdcopy copies an *exec.Cmd that has not run, so that one command
// can start any number of processes: an exec.Cmd starts once.
package cmdcopy

import (
	"os/exec"
	"slices"
)

// Of returns a fresh, unstarted command with cmd's configuration: Path,
// Args, Env, Dir, the standard streams, ExtraFiles, SysProcAttr, WaitDelay,
// and Err (a failed path lookup, which Start reports). It leaves out what
// belongs to one run (Process, ProcessState) and Cancel, which
// exec.CommandContext sets to kill cmd's own process: its context cannot be
// copied.
func Of(cmd *exec.Cmd) *exec.Cmd {
	return &exec.Cmd{
		Path:        cmd.Path,
		Args:        slices.Clone(cmd.Args),
		Env:         slices.Clone(cmd.Env),
		Dir:         cmd.Dir,
		Stdin:       cmd.Stdin,
		Stdout:      cmd.Stdout,
		Stderr:      cmd.Stderr,
		ExtraFiles:  slices.Clone(cmd.ExtraFiles),
		SysProcAttr: cmd.SysProcAttr,
		WaitDelay:   cmd.WaitDelay,
		Err:         cmd.Err,
	}
}
