package wakeups

import (
	"testing"
	"time"
)

func TestMinStabs(t *testing.T) {
	const us = time.Microsecond
	// slack returns the windows [due, due+s] of dues given in µs.
	slack := func(s time.Duration, dues ...time.Duration) []window {
		var ws []window
		for _, d := range dues {
			ws = append(ws, window{d * us, d*us + s})
		}
		return ws
	}
	for _, tc := range []struct {
		name    string
		windows []window
		want    int
	}{
		{"none", nil, 0},
		{"one", slack(0, 5), 1},
		{"slack 0: the distinct dues", slack(0, 30, 10, 20, 10, 30, 30), 3},
		{"slack covers the next due exactly", slack(10*us, 0, 10, 20, 30), 2},   // at 10 and 30
		{"slack just short of the next due", slack(9*us, 0, 10, 20, 30), 4},     // each its own
		{"one wakeup serves a run of dues", slack(50*us, 0, 10, 20, 30, 40), 1}, // at 50
		{"unsorted, with a gap", slack(5*us, 100, 0, 3, 104, 50), 3},            // at 5, 55, 105
		{"nested windows: the inner one's end", []window{{0, 100 * us}, {40 * us, 50 * us}, {60 * us, 70 * us}}, 2},
		{"a ticker grid: 10 phases 1ms apart, 12.5% of 10ms", tickerGrid(10, time.Millisecond, 1250*us), 5},
	} {
		if got := minStabs(tc.windows); got != tc.want {
			t.Errorf("%s: minStabs = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// tickerGrid is one period of n tickers whose phases are step apart, each with the given slack.
func tickerGrid(n int, step, slack time.Duration) []window {
	var ws []window
	for i := range n {
		due := time.Duration(i) * step
		ws = append(ws, window{due, due + slack})
	}
	return ws
}
