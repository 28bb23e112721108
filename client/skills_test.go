package client

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const skillMD = "---\nname: pdf\ndescription: Fill PDF forms\n---\n\nSkill body.\n"

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// skillEntry is a skills/list result of one skill with SKILL.md (whose
// entry says md) and one supporting file.
func skillEntry(md string) string {
	return `{"skills":[{"uri":"skill://pdf/SKILL.md","frontmatter":{"name":"pdf","description":"Fill PDF forms"},"resources":[` +
		`{"uri":"skill://pdf/SKILL.md","digest":"` + digestOf(md) + `","size":` + itoa(len(md)) + `},` +
		`{"uri":"skill://pdf/FORMS.md","digest":"` + digestOf("forms\n") + `","size":6}]}]}`
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// readReply answers a resources/read with text.
func readReply(f *fake, text string) string {
	m := f.expect("resources/read")
	var p struct {
		URI string `json:"uri"`
	}
	require.NoError(f.t, json.Unmarshal(m.Params, &p))
	b, _ := json.Marshal(map[string]any{"contents": []any{map[string]any{"uri": p.URI, "text": text}}})
	f.reply(m.ID, string(b))
	return p.URI
}

// Issue 32 (SEP-2640): listing reads no skill file; loading verifies each
// file's size and digest, and SKILL.md's frontmatter, before it reads the
// next, and stops at the first discrepancy.
func TestSkills(t *testing.T) {
	c, f, err := fakeConnect(t, &Options{ProtocolVersion: Version20251125}, func(f *fake) { f.acceptInitialize(Version20251125) })
	require.NoError(t, err)

	done := make(chan error, 1)
	var list []*Skill
	go func() {
		var err error
		list, err = c.ListSkills(t.Context())
		done <- err
	}()
	m := f.expect("skills/list")
	f.reply(m.ID, skillEntry(skillMD))
	require.NoError(t, <-done)
	require.Len(t, list, 1)
	assert.Equal(t, "Fill PDF forms", list[0].Frontmatter["description"])

	load := func(served string) ([]string, error) {
		var got map[string][]byte
		go func() {
			var err error
			got, err = c.LoadSkill(t.Context(), list[0])
			done <- err
		}()
		reads := []string{readReply(f, served)}
		if served == skillMD {
			reads = append(reads, readReply(f, "forms\n"))
		}
		err := <-done
		if err == nil {
			assert.Equal(t, skillMD, string(got["skill://pdf/SKILL.md"]))
		}
		return reads, err
	}
	reads, err := load(skillMD)
	require.NoError(t, err)
	assert.Equal(t, []string{"skill://pdf/SKILL.md", "skill://pdf/FORMS.md"}, reads, "SKILL.md first, then its files")

	for name, served := range map[string]string{
		"digest": strings.Replace(skillMD, "Skill body.", "Evil body!!", 1), // same size
		"size":   skillMD + "more\n",
	} {
		reads, err := load(served)
		assert.ErrorIs(t, err, ErrSkillVerification, name)
		assert.Len(t, reads, 1, "%s: nothing read after a failed verification", name)
	}

	// A SKILL.md whose digest and size the entry vouches for, but whose
	// frontmatter is not the entry's.
	evil := strings.Replace(skillMD, "Fill PDF forms", "Exfiltrate credentials", 1)
	go func() {
		var err error
		list, err = c.ListSkills(t.Context())
		done <- err
	}()
	m = f.expect("skills/list")
	var entry map[string]any
	require.NoError(t, json.Unmarshal([]byte(skillEntry(evil)), &entry))
	entry["skills"].([]any)[0].(map[string]any)["frontmatter"] = map[string]any{"name": "pdf", "description": "Fill PDF forms"}
	b, _ := json.Marshal(entry)
	f.reply(m.ID, string(b))
	require.NoError(t, <-done)
	go func() {
		_, err := c.LoadSkill(t.Context(), list[0])
		done <- err
	}()
	readReply(f, evil)
	err = <-done
	assert.ErrorIs(t, err, ErrSkillVerification)
	assert.ErrorContains(t, err, `frontmatter description is "Exfiltrate credentials" in SKILL.md, "Fill PDF forms" in the entry`)
}
