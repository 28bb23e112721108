package logcapture_test

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

func TestMatchers(t *testing.T) {
	logs := logcapture.New(t)
	errBoom := errors.New("boom")
	logs.Logger().WithGroup("req").Error("tool handler panicked",
		"tool", "explode", "code", -32603, "size", uint8(3), "err", errBoom,
		"blob", []byte("ab"), "stack", "goroutine 1\nexample.com/pkg.explode()")
	r := logs.Records()[0]

	for _, tc := range []struct {
		m    logcapture.Matcher
		want bool
		desc string
	}{
		{logcapture.Level(slog.LevelError), true, "level == ERROR"},
		{logcapture.Level(slog.LevelWarn), false, "level == WARN"},
		{logcapture.AtLeast(slog.LevelWarn), true, "level >= WARN"},
		{logcapture.AtLeast(slog.LevelError + 1), false, "level >= ERROR+1"},
		{logcapture.Message("tool handler panicked"), true, `message == "tool handler panicked"`},
		{logcapture.Message("tool handler"), false, `message == "tool handler"`},
		{logcapture.MessageContains("handler"), true, `message contains "handler"`},
		{logcapture.MessageContains("resource"), false, `message contains "resource"`},
		{logcapture.MessageMatches(`^tool \w+ panicked$`), true, `message matches /^tool \w+ panicked$/`},
		{logcapture.MessageMatches(`^resource`), false, `message matches /^resource/`},
		{logcapture.Attr("req.tool", "explode"), true, `req.tool == "explode"`},
		{logcapture.Attr("tool", "explode"), false, `tool == "explode"`},
		{logcapture.Attr("req.tool", "other"), false, `req.tool == "other"`},
		{logcapture.Attr("req.code", -32603), true, `req.code == -32603`},
		{logcapture.Attr("req.code", int64(-32603)), true, `req.code == -32603`},
		{logcapture.Attr("req.code", "-32603"), false, `req.code == "-32603"`},
		{logcapture.Attr("req.size", 3), true, `req.size == 3`},
		{logcapture.Attr("req.err", errBoom), true, `req.err == boom`},
		{logcapture.Attr("req.err", errors.New("boom")), true, `req.err == boom`}, // DeepEqual
		{logcapture.Attr("req.err", errors.New("bang")), false, `req.err == bang`},
		{logcapture.Attr("req.blob", []byte("ab")), true, `req.blob == ab`},
		{logcapture.Attr("req.tool", slog.StringValue("explode")), true, `req.tool == "explode"`},
		{logcapture.AttrContains("req.stack", "pkg.explode"), true, `req.stack contains "pkg.explode"`},
		{logcapture.AttrContains("req.err", "boo"), true, `req.err contains "boo"`},
		{logcapture.AttrContains("req.missing", ""), false, `req.missing contains ""`},
		{logcapture.HasAttr("req.stack"), true, "has req.stack"},
		{logcapture.HasAttr("stack"), false, "has stack"},
		{logcapture.InGroup("req"), true, `in group "req"`},
		{logcapture.InGroup("re"), false, `in group "re"`},
		{logcapture.Not(logcapture.Level(slog.LevelInfo)), true, "not level == INFO"},
		{logcapture.All(), true, "any record"},
		{logcapture.All(logcapture.Level(slog.LevelError), logcapture.HasAttr("req.tool")), true, "level == ERROR and has req.tool"},
		{logcapture.All(logcapture.Level(slog.LevelError), logcapture.HasAttr("tool")), false, "level == ERROR and has tool"},
		{logcapture.Any(), false, "nothing"},
		{logcapture.Any(logcapture.Level(slog.LevelInfo), logcapture.HasAttr("req.tool")), true, "level == INFO or has req.tool"},
		{logcapture.Any(logcapture.Level(slog.LevelInfo), logcapture.HasAttr("tool")), false, "level == INFO or has tool"},
		{
			logcapture.Not(logcapture.Any(logcapture.Level(slog.LevelInfo), logcapture.All(logcapture.HasAttr("a"), logcapture.HasAttr("b")))),
			true, "not (level == INFO or (has a and has b))",
		},
		{logcapture.MatchFunc("has a stack", func(r logcapture.Record) bool { return r.Stack() != "" }), true, "has a stack"},
	} {
		if got := tc.m.Match(r); got != tc.want {
			t.Errorf("%s: Match = %v, want %v", tc.m, got, tc.want)
		}
		if got := tc.m.String(); got != tc.desc {
			t.Errorf("String() = %q, want %q", got, tc.desc)
		}
	}
}

func TestInGroupNested(t *testing.T) {
	logs := logcapture.New(t)
	logs.Logger().Info("m", slog.Group("a", slog.Group("b", slog.Int("x", 1))))
	r := logs.Records()[0]
	for path, want := range map[string]bool{"a": true, "a.b": true, "b": false, "a.b.x": false} {
		if got := logcapture.InGroup(path).Match(r); got != want {
			t.Errorf("InGroup(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestMessageMatchesInvalidPattern(t *testing.T) {
	defer func() {
		p := recover()
		if s, _ := p.(string); !strings.Contains(s, `logcapture.MessageMatches: invalid pattern "("`) {
			t.Errorf("panic = %v, want one naming the bad pattern", p)
		}
	}()
	logcapture.MessageMatches("(")
}
