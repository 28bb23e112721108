package cmdcopy

import (
	"context"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// Every exported field of exec.Cmd is either copied or left out on
// purpose: a field a later Go adds fails here until it is decided.
func TestOfDecidesEveryField(t *testing.T) {
	decided := map[string]bool{
		"Path": true, "Args": true, "Env": true, "Dir": true, "Stdin": true, "Stdout": true, "Stderr": true,
		"ExtraFiles": true, "SysProcAttr": true, "WaitDelay": true, "Err": true,
		"Process": false, "ProcessState": false, "Cancel": false,
	}
	typ := reflect.TypeFor[exec.Cmd]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		if _, ok := decided[f.Name]; !ok {
			t.Errorf("exec.Cmd.%s: neither copied nor left out by Of", f.Name)
		}
	}
}

func TestOfCopiesAndStartsAgain(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tmpl := exec.CommandContext(ctx, sh, "-c", `echo "$X $(pwd)"`)
	tmpl.Env = []string{"X=copied"}
	tmpl.Dir = t.TempDir()
	tmpl.WaitDelay = time.Second
	for range 2 {
		c := Of(tmpl)
		out, err := c.Output()
		if err != nil {
			t.Fatalf("the copy did not run (a cancelled context of the template must not reach it): %v", err)
		}
		dir, _ := filepath.EvalSymlinks(tmpl.Dir)
		if got := strings.TrimSpace(string(out)); got != "copied "+dir {
			t.Errorf("output %q, want %q", got, "copied "+dir)
		}
		if c.WaitDelay != time.Second {
			t.Errorf("WaitDelay %v", c.WaitDelay)
		}
	}
	if Of(exec.Command(sh)).Env != nil {
		t.Error("a nil Env (inherit the environment) became an empty one")
	}
	if tmpl.Process != nil {
		t.Error("the template was started")
	}
	c := Of(tmpl)
	c.Args[0] = "changed"
	c.Env[0] = "X=changed"
	if tmpl.Args[0] == "changed" || tmpl.Env[0] == "X=changed" {
		t.Error("the copy shares Args or Env with the template")
	}
}

// A path lookup that failed when the template was made fails the copy's
// Start the same way.
func TestOfKeepsLookupError(t *testing.T) {
	tmpl := exec.Command("no-such-program-mcptestkit")
	if tmpl.Err == nil {
		t.Skip("found a program of that name")
	}
	if err := Of(tmpl).Start(); err == nil || !strings.Contains(err.Error(), "executable file not found") {
		t.Errorf("Start: %v, want the lookup error", err)
	}
}
