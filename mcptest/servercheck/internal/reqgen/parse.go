package main

import (
	"html"
	"regexp"
	"strings"
)

// A block is a paragraph, a list item or a table row of a page, its inline
// markup cleaned, with the anchor of the heading it is under.
type block struct {
	anchor string
	text   string
	item   bool // a list item
	indent int  // of a list item's marker
}

var (
	headingRE  = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	itemRE     = regexp.MustCompile(`^(\s*)([-*+]|\d+\.)\s+(.*)$`)
	tagLineRE  = regexp.MustCompile(`^\s*(</?[A-Za-z][^>]*>\s*)+$`)
	linkRefRE  = regexp.MustCompile(`^\s*\[[^\]]+\]:\s*\S+`)
	inlineTag  = regexp.MustCompile(`</?(?:Note|Warning|Info|Tip|Tabs|Tab|Card|CardGroup|Steps|Step|Accordion|AccordionGroup|Frame|div|span|br|sup|sub|img|a|p|strong|em|code|ul|ol|li)\b[^>]*>`)
	imageRE    = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	linkRE     = regexp.MustCompile(`\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])`)
	emphasisRE = regexp.MustCompile(`(^|[^\w*])[*_]{1,3}([^*_\s](?:[^*_]*[^*_\s])?)[*_]{1,3}`)
	htmlTagRE  = regexp.MustCompile(`<[^>]+>`)
	escapeRE   = regexp.MustCompile(`\\([\\*_{}\[\]()#+\-.!|<>])`)
)

// markdownBlocks splits a Mintlify or VitePress page into blocks, leaving
// out front matter, fenced code, MDX tags and link definitions.
func markdownBlocks(src string) []block {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				lines = lines[i+1:]
				break
			}
		}
	}
	var (
		out    []block
		cur    *block
		anchor string
		fence  string
		seen   = map[string]int{}
	)
	flush := func() {
		if cur != nil && strings.TrimSpace(cur.text) != "" {
			cur.text = clean(cur.text)
			out = append(out, *cur)
		}
		cur = nil
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			flush()
			fence = t[:3]
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(t, ">"))
		switch {
		case t == "" || strings.HasPrefix(t, ":::") || strings.HasPrefix(t, "import ") || linkRefRE.MatchString(l) || tagLineRE.MatchString(t):
			flush()
			continue
		}
		if m := headingRE.FindStringSubmatch(t); m != nil {
			flush()
			anchor = slug(clean(m[2]))
			if n := seen[anchor]; n > 0 {
				seen[anchor]++
				anchor += "-" + itoa(n)
			} else {
				seen[anchor] = 1
			}
			continue
		}
		if strings.HasPrefix(t, "|") {
			flush()
			cells := strings.Split(strings.Trim(t, "|"), "|")
			sep := true
			var keep []string
			for _, c := range cells {
				c = strings.TrimSpace(c)
				if strings.Trim(c, "-: ") != "" {
					sep = false
				}
				keep = append(keep, c)
			}
			if !sep {
				out = append(out, block{anchor: anchor, text: clean(strings.Join(keep, "; "))})
			}
			continue
		}
		if m := itemRE.FindStringSubmatch(l); m != nil {
			flush()
			cur = &block{anchor: anchor, text: m[3], item: true, indent: len(strings.ReplaceAll(m[1], "\t", "    "))}
			continue
		}
		if cur == nil {
			cur = &block{anchor: anchor}
		}
		cur.text += " " + t
	}
	flush()
	return out
}

// typedocBlocks splits the Schema Reference page (typedoc's HTML in MDX)
// into its paragraphs and list items, each under the last anchor before it.
func typedocBlocks(src string) []block {
	var out []block
	anchor := ""
	// Cut at every paragraph or list item boundary, remembering anchors.
	parts := regexp.MustCompile(`(?s)<(?:p|li)>(.*?)</(?:p|li)>|id="([^"]+)"|(?m:^#{1,6}[ \t]+([^\n]+))`).FindAllStringSubmatch(src, -1)
	for _, p := range parts {
		if p[3] != "" { // a type's heading
			anchor = slug(clean(p[3]))
			continue
		}
		if p[2] != "" {
			anchor = html.UnescapeString(p[2])
			continue
		}
		text := html.UnescapeString(htmlTagRE.ReplaceAllStringFunc(p[1], func(tag string) string {
			if strings.HasPrefix(tag, "<code") || strings.HasPrefix(tag, "</code") {
				return "`"
			}
			return ""
		}))
		out = append(out, block{anchor: anchor, text: clean(text)})
	}
	return out
}

// clean removes inline markup outside code spans: links keep their text,
// emphasis and MDX tags go.
func clean(s string) string {
	s = imageRE.ReplaceAllString(s, "")
	s = linkRE.ReplaceAllString(s, "$1")
	s = inlineTag.ReplaceAllString(s, "")
	parts := strings.Split(s, "`")
	for i := 0; i < len(parts); i += 2 {
		p := parts[i]
		for {
			q := emphasisRE.ReplaceAllString(p, "$1$2")
			if q == p {
				break
			}
			p = q
		}
		p = strings.ReplaceAll(p, "**", "")
		p = escapeRE.ReplaceAllString(p, "$1")
		parts[i] = html.UnescapeString(p)
	}
	return strings.Join(strings.Fields(strings.Join(parts, "`")), " ")
}

// slug makes a heading's anchor as the site does: lower case, words joined
// by "-", punctuation dropped but for "_", and the "/" and ":" of method
// names and URI schemes ("notifications/cancelled", "https://"), which the
// site keeps (and a URL escapes).
func slug(h string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(h) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '/', r == ':':
			b.WriteRune(r)
			dash = false
		case r == ' ' || r == '-':
			if !dash && b.Len() > 0 {
				b.WriteByte('-')
				dash = true
			}
		}
	}
	return strings.TrimSuffix(b.String(), "-")
}

func itoa(n int) string {
	const digits = "0123456789"
	if n < 10 {
		return digits[n : n+1]
	}
	return itoa(n/10) + digits[n%10:n%10+1]
}

// sentences splits a block's text into sentences, never inside a code span
// and not after the usual abbreviations.
func sentences(s string) []string {
	var out []string
	start, code := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '`' {
			code = !code
			continue
		}
		if code || (c != '.' && c != '?' && c != '!') || i+2 >= len(s) || s[i+1] != ' ' {
			continue
		}
		next := s[i+2]
		if !(next >= 'A' && next <= 'Z' || next == '`' || next == '"' || next == '(') {
			continue
		}
		word := s[strings.LastIndexByte(s[:i], ' ')+1 : i]
		switch strings.ToLower(word) {
		case "e.g", "i.e", "etc", "vs", "cf", "(e.g", "(i.e":
			continue
		}
		out = append(out, strings.TrimSpace(s[start:i+1]))
		start = i + 2
	}
	if rest := strings.TrimSpace(s[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}
