package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The repository's GitHub Action (action.yml at its root) and the workflow
// that uses it. There is no GitHub here: the test validates the file
// against the action metadata schema and runs the steps' scripts the way
// the runner would, with the inputs in their environment.

const actionFile = "../../action.yml"

type action struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name             string            `yaml:"name"`
	ID               string            `yaml:"id"`
	If               string            `yaml:"if"`
	Uses             string            `yaml:"uses"`
	With             map[string]string `yaml:"with"`
	Shell            string            `yaml:"shell"`
	Run              string            `yaml:"run"`
	Env              map[string]string `yaml:"env"`
	WorkingDirectory string            `yaml:"working-directory"`
}

func TestActionSchema(t *testing.T) {
	data, err := os.ReadFile(actionFile)
	require.NoError(t, err)
	var doc any
	require.NoError(t, yaml.Unmarshal(data, &doc))
	// Through JSON: the validator takes what encoding/json makes.
	j, err := json.Marshal(doc)
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(j))
	require.NoError(t, err)

	f, err := os.Open("testdata/schemas/github-action.json")
	require.NoError(t, err)
	defer f.Close()
	schemaDoc, err := jsonschema.UnmarshalJSON(f)
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("https://json.schemastore.org/github-action.json", schemaDoc))
	sch, err := c.Compile("https://json.schemastore.org/github-action.json")
	require.NoError(t, err)
	require.NoError(t, sch.Validate(inst))

	// The workflow uses this action, on the Bookshop.
	wf, err := os.ReadFile("../../.github/workflows/mcptestkit.yml")
	require.NoError(t, err)
	var workflow struct {
		Jobs map[string]struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	require.NoError(t, yaml.Unmarshal(wf, &workflow))
	require.Contains(t, workflow.Jobs, "bookshop")
	var uses []string
	for _, s := range workflow.Jobs["bookshop"].Steps {
		uses = append(uses, s.Uses)
	}
	assert.Contains(t, uses, "./")
}

// expr matches a ${{ ... }} expression.
var expr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

// runner plays the part of the GitHub runner for the action's steps.
type runner struct {
	t       *testing.T
	inputs  map[string]string
	outputs map[string]map[string]string // by step id
	context map[string]string            // github.* and runner.*
	env     []string                     // GITHUB_* files and the like
}

// eval substitutes the expressions of s; one it does not know fails the
// test, so that a step the action gains cannot go untested unnoticed.
func (r *runner) eval(s string) string {
	return expr.ReplaceAllStringFunc(s, func(m string) string {
		e := expr.FindStringSubmatch(m)[1]
		switch parts := strings.Split(e, "."); {
		case len(parts) == 2 && parts[0] == "inputs":
			v, ok := r.inputs[parts[1]]
			require.True(r.t, ok, "action.yml: unknown input in %s", m)
			return v
		case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
			return r.outputs[parts[1]][parts[3]]
		}
		v, ok := r.context[e]
		require.True(r.t, ok, "action.yml: the test does not know %s", m)
		return v
	})
}

// condition evaluates an if: of the shape the action uses:
// "A == 'x' && B != ”".
func (r *runner) condition(cond string) bool {
	cond = strings.TrimSpace(r.eval(strings.NewReplacer("${{", "", "}}", "").Replace(cond)))
	if cond == "" {
		return true
	}
	for _, term := range strings.Split(cond, "&&") {
		term = strings.TrimSpace(term)
		re := regexp.MustCompile(`^(\S+)\s*(==|!=)\s*'([^']*)'$`)
		m := re.FindStringSubmatch(term)
		require.NotNil(r.t, m, "action.yml: the test cannot evaluate %q", term)
		if (r.eval("${{ "+m[1]+" }}") == m[3]) != (m[2] == "==") {
			return false
		}
	}
	return true
}

// readOutputs reads a $GITHUB_OUTPUT file (name=value lines).
func readOutputs(t *testing.T, file string) map[string]string {
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			out[k] = v
		}
	}
	return out
}

// The action's steps, run here on the broken stdio server: mcptestkit is
// built from this checkout, the check annotates the failure, writes the
// summary and the SARIF report, and the last step fails the job.
func TestActionSteps(t *testing.T) {
	data, err := os.ReadFile(actionFile)
	require.NoError(t, err)
	var a action
	require.NoError(t, yaml.Unmarshal(data, &a))
	require.Equal(t, "composite", a.Runs.Using)

	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	work, tmp := t.TempDir(), t.TempDir()
	files := map[string]string{}
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY"} {
		files[k] = filepath.Join(tmp, strings.ToLower(k))
	}
	r := &runner{t: t, inputs: map[string]string{}, outputs: map[string]map[string]string{},
		context: map[string]string{"github.action_path": root, "runner.temp": tmp}}
	for name, in := range a.Inputs {
		r.inputs[name] = in.Default
	}
	r.inputs["server"] = serverBinary(t)
	r.inputs["args"] = "--run tools/(calls|descriptions) --fuzz-calls 4"
	r.inputs["working-directory"] = work
	r.env = []string{"GITHUB_ACTIONS=true", "RUNNER_TEMP=" + tmp, "STDIOSERVER_BROKEN=1"}
	for k, f := range files {
		r.env = append(r.env, k+"="+f)
	}

	var uploaded, verdict string
	for _, step := range a.Runs.Steps {
		if !r.condition(step.If) {
			continue
		}
		if step.Uses != "" {
			// GitHub's upload: what it would upload must be there.
			require.Contains(t, step.Uses, "github/codeql-action/upload-sarif@")
			uploaded = r.eval(step.With["sarif_file"])
			continue
		}
		require.Equal(t, "bash", step.Shell, step.Name)
		require.NoError(t, os.WriteFile(files["GITHUB_OUTPUT"], nil, 0o644))
		cmd := exec.CommandContext(t.Context(), "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.Run)
		cmd.Dir = root
		if step.WorkingDirectory != "" {
			cmd.Dir = r.eval(step.WorkingDirectory)
		}
		cmd.Env = append(os.Environ(), r.env...)
		for k, v := range step.Env {
			cmd.Env = append(cmd.Env, k+"="+r.eval(v))
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if step.ID != "" {
			r.outputs[step.ID] = readOutputs(t, files["GITHUB_OUTPUT"])
		}
		if step.Name == "Verdict" {
			verdict = stdout.String()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "the verdict fails the job")
			assert.Equal(t, 1, ee.ExitCode())
			continue
		}
		require.NoError(t, err, "step %q:\nstdout:\n%s\nstderr:\n%s", step.Name, stdout.String(), stderr.String())
		if step.ID == "check" {
			assert.Contains(t, stderr.String(), "::error title=mcptestkit tools/calls/explode::called tool")
			assert.Contains(t, stderr.String(), "::warning title=mcptestkit tools/descriptions::")
		}
	}
	assert.Equal(t, map[string]string{"exit-code": "1", "sarif": "mcptestkit.sarif"}, r.outputs["check"])
	require.Equal(t, filepath.Join(work, "mcptestkit.sarif"), uploaded)
	sarifData, err := os.ReadFile(uploaded)
	require.NoError(t, err)
	results, _ := sarifResults(t, validateSARIF(t, string(sarifData)))
	assert.Len(t, results, 2)
	summary, err := os.ReadFile(files["GITHUB_STEP_SUMMARY"])
	require.NoError(t, err)
	assert.Contains(t, string(summary), "| ❌ failed | 1 |")
	path, err := os.ReadFile(files["GITHUB_PATH"])
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(tmp, "mcptestkit-bin")+"\n", string(path))
	assert.Contains(t, verdict, "mcptestkit check failed")
}
