package client

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ExtensionSkills is the skills extension (SEP-2640): a server offers agent
// skills, each a SKILL.md and its supporting files, as resources listed by
// skills/list with a digest and a size for each file.
const ExtensionSkills = "io.modelcontextprotocol/skills"

// Skill is one entry of skills/list: where its SKILL.md is, the frontmatter
// the server says it has, and every file of the skill with the digest and
// size its content must have.
type Skill struct {
	// URI is the skill's SKILL.md.
	URI string `json:"uri"`
	// Frontmatter is the SKILL.md frontmatter as the entry gives it (name,
	// description, ...).
	Frontmatter map[string]any `json:"frontmatter"`
	// Files are the skill's files, SKILL.md among them.
	Files []*SkillFile `json:"resources"`
}

// SkillFile is one file of a skill.
type SkillFile struct {
	URI string `json:"uri"`
	// Digest is "sha256:" and the hex SHA-256 of the content.
	Digest string `json:"digest"`
	// Size is the content's length in bytes.
	Size int64 `json:"size"`
}

// ErrSkillVerification is wrapped by the error of [Client.LoadSkill] when a
// file's content is not what the skill's entry says: its size, its digest,
// or (for SKILL.md) its frontmatter.
var ErrSkillVerification = errors.New("skill verification failed")

// ListSkills lists the skills the server offers (skills/list). It reads no
// skill file: the host decides which skills to load, and only
// [Client.LoadSkill] retrieves one.
func (c *Client) ListSkills(ctx context.Context, opts ...CallOption) ([]*Skill, error) {
	raw, err := c.Call(ctx, "skills/list", map[string]any{}, opts...)
	if err != nil {
		return nil, err
	}
	var res struct {
		Skills []*Skill `json:"skills"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, fmt.Errorf("skills/list: decoding result: %w", err)
	}
	return res.Skills, nil
}

// LoadSkill retrieves a skill: its SKILL.md first, then its other files,
// each verified against the entry before it is used: its size, its digest,
// and for SKILL.md its frontmatter, field by field. At the first
// discrepancy it returns an error wrapping [ErrSkillVerification] and reads
// nothing more. It returns each file's content by URI.
func (c *Client) LoadSkill(ctx context.Context, s *Skill, opts ...CallOption) (map[string][]byte, error) {
	files := map[string]*SkillFile{}
	for _, f := range s.Files {
		files[f.URI] = f
	}
	order := []string{s.URI}
	for _, f := range s.Files {
		if f.URI != s.URI {
			order = append(order, f.URI)
		}
	}
	out := map[string][]byte{}
	for _, uri := range order {
		f := files[uri]
		if f == nil {
			return nil, fmt.Errorf("skill %s: %w: the entry lists no digest and size for its SKILL.md", s.URI, ErrSkillVerification)
		}
		res, err := c.ReadResource(ctx, uri, opts...)
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", s.URI, err)
		}
		var content []byte
		for _, rc := range res.Contents {
			if rc.Blob != nil {
				content = append(content, rc.Blob...)
			} else {
				content = append(content, rc.Text...)
			}
		}
		if err := f.verify(content); err != nil {
			return nil, fmt.Errorf("skill %s: %s: %w", s.URI, uri, err)
		}
		if uri == s.URI {
			if err := sameFrontmatter(content, s.Frontmatter); err != nil {
				return nil, fmt.Errorf("skill %s: %w", s.URI, err)
			}
		}
		out[uri] = content
	}
	return out, nil
}

func (f *SkillFile) verify(content []byte) error {
	if int64(len(content)) != f.Size {
		return fmt.Errorf("%w: %d bytes, the entry says %d", ErrSkillVerification, len(content), f.Size)
	}
	algo, want, ok := strings.Cut(f.Digest, ":")
	if !ok || algo != "sha256" {
		return fmt.Errorf("%w: digest %q is not sha256:<hex>", ErrSkillVerification, f.Digest)
	}
	sum := sha256.Sum256(content)
	if got := hex.EncodeToString(sum[:]); !strings.EqualFold(got, want) {
		return fmt.Errorf("%w: sha256 %s, the entry says %s", ErrSkillVerification, got, want)
	}
	return nil
}

// sameFrontmatter compares SKILL.md's frontmatter (the YAML between the
// leading "---" lines; flat "key: value" fields) with the entry's, field by
// field.
func sameFrontmatter(content []byte, want map[string]any) error {
	got := map[string]string{}
	lines := strings.Split(string(bytes.ReplaceAll(content, []byte("\r\n"), []byte("\n"))), "\n")
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return fmt.Errorf("%w: SKILL.md has no frontmatter", ErrSkillVerification)
	}
	closed := false
	for _, l := range lines[1:] {
		if strings.TrimSpace(l) == "---" {
			closed = true
			break
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.TrimSpace(k) == "" {
			continue
		}
		got[strings.TrimSpace(k)] = strings.Trim(strings.TrimSpace(v), `"'`)
	}
	if !closed {
		return fmt.Errorf("%w: SKILL.md's frontmatter does not end", ErrSkillVerification)
	}
	for k, v := range want {
		s, isString := v.(string)
		if !isString {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		if got[k] != s {
			return fmt.Errorf("%w: frontmatter %s is %q in SKILL.md, %q in the entry", ErrSkillVerification, k, got[k], s)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			return fmt.Errorf("%w: frontmatter %s is in SKILL.md, not in the entry", ErrSkillVerification, k)
		}
	}
	return nil
}
