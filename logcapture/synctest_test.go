package logcapture_test

import (
	"log/slog"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcptestkit/mcptestkit/logcapture"
)

// A recorder works in a synctest bubble, and its records carry the
// bubble's time. (Nothing here waits on anything but the bubble's clock,
// so the bubble cannot stall.)
func TestInSynctestBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := logcapture.New(t)
		start := time.Now()
		time.Sleep(time.Hour)
		logs.Logger().Info("an hour later")
		logs.AssertNone(t, logcapture.AtLeast(slog.LevelWarn))
		rec := logs.RequireLogged(t, logcapture.Message("an hour later"))
		if got := rec.Time.Sub(start); got != time.Hour {
			t.Errorf("the record is %v after the start, want 1h on the bubble's clock", got)
		}
	})
}
