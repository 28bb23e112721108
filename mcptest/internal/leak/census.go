package leak

import (
	"context"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// The leak check of one connection asks whether a goroutine carrying its
// label is still running once it has closed. Two things can answer.
//
// The garbage collector, at no cost. The runtime keeps a goroutine's labels
// as a pointer to its label set (g.labels), which holds the label's value:
// every goroutine the connection started, and every goroutine those
// started, keeps the value's bytes reachable until it exits, when the
// runtime drops the pointer. Each connection's value is an allocation of
// its own (see NewLabel) that nothing of the harness, the adapters or
// the transports keeps once the connection has closed
// (TestClosedConnectionsAreCollected), with a cleanup (runtime.AddCleanup): when the
// cleanup runs, no goroutine carries the label, so the connection is clean.
// That is how the runtime behaves, not what it promises: the census checks
// it once per process (selfCheck), once the process is busy enough for the
// collector to matter, and does without the collector until the check has
// passed. Reachable proves nothing, though. Something else
// may keep the value: a CPU profile being recorded keeps the label set of
// every goroutine it sampled until it stops, and a server may keep a
// handler's context. And a busy process collects every few milliseconds,
// an idle one maybe not for minutes.
//
// The goroutine profile, which lists every goroutine with its labels.
// Reading it costs time in proportion to every goroutine in the process: in
// a suite of thousands of parallel tests, most of them goroutines of tests
// paused in t.Parallel. One read per connection would make the suite's time
// grow with the square of its size.
//
// So the checks of a test binary share one census. A connection that closes
// is added to it and leaves it silently when its cleanup runs. The profile
// is read, for every connection still waiting, only once one has waited
// maxDelay (or its leak wait, if shorter) without being collected, and at
// once when reading is cheap (few goroutines in the process) and either the
// closing connection was not alone and no other is open now (a suite of
// parallel tests pausing, or ending), or it was alone (no other connection
// open when it was made, none made or closed while it was open) and left
// more goroutines in the process than there were when it was made, once
// its own have had a chance to end (tests that do not run in parallel; a
// benchmark). A leak found by a test's own
// read fails that test; a leak of a connection whose test has already ended
// fails the test that found it, naming the test that leaked. So a test that
// leaks fails by itself unless it runs in parallel with many others, or it
// ran alone and other goroutines of the process ended meanwhile.
//
// While a CPU profile is recorded, the connections it sampled are resolved
// by reads (correct, slower). Connections still waiting when the test
// binary exits are never checked; goleak.VerifyTestMain in TestMain, which
// the package documentation asks for, sees their leaked goroutines.
type Census struct {
	reading sync.Mutex // held while the profile is read and judged

	// Cheap: with at most this many goroutines in the process, a
	// connection is read for at once unless its count of goroutines
	// vouches for it. MaxDelay: how long a closed connection waits for the
	// collector before a read.
	Cheap    int
	MaxDelay time.Duration
	// Goroutines counts the goroutines in the process:
	// runtime.NumGoroutine, or what a test makes it say.
	Goroutines func() int
	// Collector reports whether the garbage collector may clear
	// connections (the process's self-check passed, or what a test makes
	// it say); when it may not, only profile reads do. busy says that the
	// process has more than Cheap goroutines (reads are dear) or
	// connections waiting (many tests have run).
	Collector func(busy bool) bool
	// open counts the connections open; events, those made and closed. A
	// connection made with none open, and that saw no other made or
	// closed while it was open, was alone.
	open   atomic.Int64
	events atomic.Uint64

	mu      sync.Mutex
	pending map[uint64]*Pending // by id
	lastID  uint64
	nextDue time.Time // no connection waiting is due for a read before (zero: none waits)
	// What the census did, for its tests: profile reads, connections the
	// collector showed clean.
	reads, collected int
}

// Shared is the test binary's census. It is process-wide state because
// what it reads, the goroutine profile, is.
var Shared = New()

// New returns a census that reads at once with at most 64 goroutines
// in the process (a read then costs tens of microseconds), and otherwise
// reads for a connection the collector has not cleared within a second.
func New() *Census {
	return &Census{Cheap: 64, MaxDelay: time.Second, Goroutines: runtime.NumGoroutine, Collector: theSelfCheck.usable, pending: map[uint64]*Pending{}}
}

// NewBubble returns the census of one connection made in a
// testing/synctest bubble: it never uses the collector,
// whose cleanups run outside the bubble, and starts no self-check.
func NewBubble() *Census {
	c := New()
	c.Collector = func(bool) bool { return false }
	return c
}

// Check is what the harness tells the census of a connection it checks.
type Check struct {
	Test   string        // the test's name, for a report made by another test
	Ignore []string      // functions whose goroutines do not count (IgnoreLeaks)
	Wait   time.Duration // how long its goroutines may take to end
	Start  Start         // what Connecting returned
}

// Pending is one connection waiting for the census.
type Pending struct {
	Check
	ID     uint64
	Label  string // a copy of the label's value, never the value itself, to find it in the profile
	Closed time.Time
	Due    time.Time // when to read for it, if the collector has not cleared it
	active bool      // its own test is reading for it: a leak is its to report
}

// Start is what the census knows of the process when a connection is
// made.
type Start struct {
	goroutines int    // in the process
	events     uint64 // census.events, this connection's making counted
	others     bool   // other connections were open
}

// connecting tells the census that a connection is being made, before it
// starts anything; every call is followed by one of Check or Closed.
func (c *Census) Connecting() Start {
	n := c.Goroutines()
	// Goroutines that are about to exit (the last connection's, the last
	// test's) would hide as many leaked ones: let them go first.
	for i := 0; i < 3 && n <= c.Cheap; i++ {
		runtime.Gosched()
		m := c.Goroutines()
		if m >= n {
			break
		}
		n = m
	}
	return Start{goroutines: n, others: c.open.Add(1) > 1, events: c.events.Add(1)}
}

// closed tells the census that a connection it will not check has closed.
func (c *Census) Closed() {
	c.open.Add(-1)
	c.events.Add(1)
}

// Report is a leak the census found.
type Report struct {
	Test   string        // the test of the connection (unset for the checking test's own)
	After  time.Duration // how long after the connection closed it was found (unset likewise)
	Text   string        // the leaked goroutines and their stacks; "" for none
	Starts []string      // the leaked goroutines' start functions
}

// Check adds the connection labelled label to the census and reads the
// profile at once when now is set, when reading is cheap and the count of
// goroutines does not vouch for the connection, or when a connection
// waiting is due. It returns the
// report on this connection's leaked goroutines (empty if none, or if it
// was not checked yet) and those on other tests' connections.
//
// The caller must hold no reference to label's bytes after the call (the
// census keeps a copy): the cleanup that clears the connection runs once
// only goroutines could have held them, and none does.
func (c *Census) Check(ctx context.Context, label string, chk Check, now bool) (Report, []Report) {
	c.open.Add(-1)
	alone := c.events.Add(1) == chk.Start.events+1 && !chk.Start.others
	n := c.Goroutines()
	if !now && n <= c.Cheap {
		if alone {
			// Other goroutines of the process coming and going make the
			// count a hint only.
			now = c.grew(chk.Start.goroutines, n)
		} else {
			// Other connections made or closed meanwhile make the count
			// say nothing. Each read still costs a few hundred
			// microseconds: one for every connection waiting, once none is
			// open (the suite may be ending, and a connection still
			// waiting at exit is never read), not one per connection.
			now = c.open.Load() == 0
		}
	}
	p := &Pending{Check: chk, Label: strings.Clone(label), Closed: time.Now(), active: now}
	p.Due = p.Closed.Add(min(p.Wait, c.MaxDelay))
	c.mu.Lock()
	c.lastID++
	p.ID = c.lastID
	c.pending[p.ID] = p
	if !now && (c.nextDue.IsZero() || p.Due.Before(c.nextDue)) {
		c.nextDue = p.Due
	}
	due := now || c.dueLocked(p.Closed)
	busy := n > c.Cheap || len(c.pending) > c.Cheap
	c.mu.Unlock()
	// The cleanup is added once the connection waits, so that it finds it.
	if label != "" && c.Collector(busy) {
		runtime.AddCleanup(unsafe.StringData(label), c.collect, p.ID)
	}
	if !due {
		return Report{}, nil
	}
	return c.read(ctx, p.ID, now)
}

// selfCheck runs labelsKeepValues once per process, in the background from
// the first leak check made in a busy process (many goroutines, or many
// connections waiting), so that no test waits for its collections (a few
// milliseconds). Until it has passed, the census does without the
// collector.
type selfCheck struct {
	once sync.Once
	done chan struct{}
	ok   bool
}

// theSelfCheck is process-wide, as what it checks is.
var theSelfCheck = &selfCheck{done: make(chan struct{})}

func (s *selfCheck) start() {
	s.once.Do(func() {
		go func() {
			pprof.SetGoroutineLabels(context.Background()) // not a connection's goroutine
			s.ok = labelsKeepValues()
			close(s.done)
		}()
	})
}

// usable reports whether the check has run and passed, without waiting
// for it; busy starts it if needed. Until the process is busy the census
// reads instead, at a few hundred microseconds a read, and a test binary
// that never gets busy (a package with a few tests) never pays for the
// check: 3-10 ms of forced collections, which goleak.VerifyTestMain waited
// out at exit when a small suite ended before the check did.
func (s *selfCheck) usable(busy bool) bool {
	if busy {
		s.start()
	}
	select {
	case <-s.done:
		return s.ok
	default:
		return false
	}
}

// RuntimeKeepsLabels waits for the process's self-check and reports
// whether it passed: whether the collector may clear connections.
func RuntimeKeepsLabels() bool { return theSelfCheck.wait() }

// wait waits for the check and reports whether it passed.
func (s *selfCheck) wait() bool {
	s.start()
	<-s.done
	return s.ok
}

// labelsKeepValues reports whether this runtime does what the census's use
// of the collector relies on (see census): a goroutine carrying a label
// keeps the value's bytes reachable while it runs, and only while it runs.
// It tries, on a goroutine of its own with a label of its own, with about
// three forced collections. Should a runtime copy label values, or keep
// them after the goroutine exits, the census would take a leaking
// connection for a clean one, or wait for nothing: it reads the profile
// instead, as without the collector.
func labelsKeepValues() bool {
	value := NewLabel()
	collected := make(chan struct{})
	runtime.AddCleanup(unsafe.StringData(value), func(ch chan struct{}) { close(ch) }, collected)
	// A second allocation with nothing keeping it: once its cleanup has
	// run, a collection has run the cleanups it could.
	control := func() chan struct{} {
		ran := make(chan struct{})
		b := new([32]byte)
		runtime.AddCleanup(b, func(ch chan struct{}) { close(ch) }, ran)
		return ran
	}
	running, stop, exited := make(chan struct{}), make(chan struct{}), make(chan struct{})
	pprof.Do(context.Background(), pprof.Labels(Key, value), func(context.Context) {
		go func() {
			defer close(exited)
			close(running)
			<-stop
		}()
	})
	value = "" // from here on, only the goroutine's labels hold it
	<-running
	if !gcUntil(control()) {
		close(stop)
		return false
	}
	// Cleanups may run on more than one goroutine: give the label's, had
	// it been queued with the control's, time to run too.
	runtime.GC()
	keptWhileRunning := !closedWithin(collected, time.Millisecond)
	close(stop)
	<-exited
	// The goroutine has said it is done; the runtime drops its labels when
	// it has exited, a moment later.
	return gcUntil(collected) && keptWhileRunning
}

// gcUntil collects until ch is closed by a cleanup, for a second at most.
func gcUntil(ch <-chan struct{}) bool {
	for range 100 {
		runtime.GC()
		if closedWithin(ch, 10*time.Millisecond) {
			return true
		}
	}
	return false
}

// closedWithin reports whether ch is closed, or closes within d.
func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	select {
	case <-ch:
		return true
	default:
	}
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// grew reports whether the process has more goroutines than before, n
// counted now, once the connection's own have had a few chances to exit:
// Serve and the client's Close have returned, but a goroutine that has said
// it is done may not have exited yet.
func (c *Census) grew(before, n int) bool {
	for range 3 {
		if n <= before {
			return false
		}
		runtime.Gosched()
		n = c.Goroutines()
	}
	return n > before
}

// collect is the cleanup of a connection's label: no goroutine carries it,
// so the connection is clean.
func (c *Census) collect(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[id]; ok {
		delete(c.pending, id)
		c.collected++
	}
}

// Pending returns the connections waiting, for the census's tests.
func (c *Census) Pending() []Pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Pending, 0, len(c.pending))
	for _, p := range c.pending {
		out = append(out, *p)
	}
	return out
}

// Counts says what the census did, for its tests: profile reads, and
// connections the collector showed clean.
func (c *Census) Counts() (reads, collected int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reads, c.collected
}

// dueLocked reports whether a connection waiting is due for a read at now.
func (c *Census) dueLocked(now time.Time) bool {
	if c.nextDue.IsZero() || now.Before(c.nextDue) {
		return false
	}
	// The collector removes connections without moving nextDue.
	c.nextDue = c.earliestDue()
	return !c.nextDue.IsZero() && !now.Before(c.nextDue)
}

// earliestDue is when the first connection waiting (and not being read for
// by its own test) is due; zero when none is.
func (c *Census) earliestDue() time.Time {
	var t time.Time
	for _, p := range c.pending {
		if !p.active && (t.IsZero() || p.Due.Before(t)) {
			t = p.Due
		}
	}
	return t
}

// read reads the profile for every connection waiting, forgets the clean
// ones and reports those past their wait. The connections of own's test
// are its test's to report, as its own. With exact set it reads again
// until every connection waiting is one or the other (a leak costs its
// wait), for those of other tests no longer than own's wait; those still
// running goroutines after that are read for again once their wait is over.
func (c *Census) read(ctx context.Context, own uint64, exact bool) (Report, []Report) {
	// One read at a time, which may serve others waiting for the lock; but
	// not held between reads, so that a leak waited out does not hold up
	// every other test's check.
	c.reading.Lock()
	c.mu.Lock()
	p, waiting := c.pending[own]
	test, until := "", time.Time{}
	if waiting {
		test, until = p.Test, p.Closed.Add(p.Wait)
	}
	needed := exact && waiting || c.dueLocked(time.Now())
	c.mu.Unlock()
	if !needed {
		// A read that began after it was added, or the collector, found
		// it clean, and the others due.
		c.reading.Unlock()
		return Report{}, nil
	}
	// The connections of the reading test: closed earlier in the same
	// test, they wait for its reads too.
	mine := func(id uint64, p *Pending) bool { return id == own || test != "" && p.Test == test }
	var ownReport Report // its test and closed unset: the caller knows them
	var reports []Report
	delay := 50 * time.Microsecond
	for {
		// The connection's own goroutines have just been told to stop;
		// let them run before looking.
		runtime.Gosched()
		now := time.Now()
		labelled := readLabelled()
		left := false
		c.mu.Lock()
		c.reads++
		for id, p := range c.pending {
			if p.Closed.After(now) {
				continue // closed after the read began: for the next one
			}
			if exact && mine(id, p) {
				p.active = true // others' reads between this one's leave it alone
			}
			groups := filterIgnored(labelled[p.Label], p.Ignore)
			switch {
			case len(groups) == 0:
				delete(c.pending, id)
			case p.active && !mine(id, p):
				// Its test is waiting to read; the leak is its to report.
			case now.Sub(p.Closed) >= p.Wait || ctx.Err() != nil:
				delete(c.pending, id)
				report, starts := describeLeaks(groups)
				if !mine(id, p) {
					reports = append(reports, Report{Test: p.Test, After: now.Sub(p.Closed), Text: report, Starts: starts})
					break
				}
				if ownReport.Text != "" {
					report = ownReport.Text + "\n\nAnother connection of this test: " + report
				}
				ownReport.Text = report
				for _, fn := range starts {
					if !slices.Contains(ownReport.Starts, fn) {
						ownReport.Starts = append(ownReport.Starts, fn)
					}
				}
			case exact && (mine(id, p) || now.Before(until)):
				// Read for at once, maybe as the suite ends: no
				// connection waiting should be left unread at exit. Others
				// are waited for no longer than this one would be.
				left = true
			default:
				// Its goroutines may still be ending: unless the collector
				// clears it first, read again once it may be reported.
				p.Due = p.Closed.Add(p.Wait)
			}
		}
		c.nextDue = c.earliestDue()
		c.mu.Unlock()
		c.reading.Unlock()
		if !left {
			return ownReport, reports
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
		delay = min(2*delay, 100*time.Millisecond)
		c.reading.Lock()
	}
}
