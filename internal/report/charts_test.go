package report

import "testing"

func TestSlackOf(t *testing.T) {
	for godebug, want := range map[string]string{"": "0s", "timerslack=50us": "50µs",
		"asyncpreemptoff=1,timerslack=1ms": "1ms", "timerslack=bad": "0s"} {
		if got := slackOf(godebug).String(); got != want {
			t.Errorf("slackOf(%q) = %s, want %s", godebug, got, want)
		}
	}
}
