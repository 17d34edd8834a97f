package suite

import "timerlab/bench/units"

// The workloads of bench/ (and one third-party module's benchmarks) that drive timers through
// deadlines and timeouts on loopback connections.

// Deadline is bench/deadline: deadlines and timers moved earlier and later (golang/go#41699).
var Deadline = Workload{Name: "deadline", Pkg: "timerlab/bench/deadline", From: Bench,
	sets: func(quick bool) []Set {
		return []Set{{Name: "deadline", Expect: []string{"DeadlineChurn", "TimerResetChurn"},
			Benchtime: pick(quick, "", "100ms"),
			About:     "deadline churn: SetReadDeadline / Reset moved earlier and later (golang/go#41699)"}}
	}, Headlines: []Headline{
		{Bench: "TimerResetChurn", Unit: "sec/op", Label: "50K timers reset later and earlier (golang/go#41699)",
			Use: "timers reset back and forth"},
		{Bench: "DeadlineChurn", Unit: "sec/op", Label: "read deadlines moved on 1000 idle connections",
			Use: "deadlines moved on idle connections"},
	}}

// HTTPTimeout is bench/httptimeout: a loopback net/http server with a context.WithTimeout per
// request, under a bounded load.
var HTTPTimeout = Workload{Name: "httptimeout", Pkg: "timerlab/bench/httptimeout", From: Bench,
	Units: []string{units.Expired},
	sets: func(quick bool) []Set {
		return []Set{{Name: "httptimeout", Expect: []string{"HTTPWithTimeout"}, Benchtime: pick(quick, "", "2000x"),
			About: "loopback net/http server, context.WithTimeout per request, bounded load"}}
	}}

// GRPC is bench/grpcload: google.golang.org/grpc's unary calls with a deadline each; not in the
// quick matrix, whose builds it would dominate.
var GRPC = Workload{Name: "grpc", Pkg: "timerlab/bench/grpcload", From: Bench,
	sets: func(quick bool) []Set {
		if quick {
			return nil
		}
		return []Set{{Name: "grpc", Expect: []string{"GRPCUnaryDeadline"},
			About: "google.golang.org/grpc unary health checks with per-call deadlines over loopback"}}
	}}

// FastHTTP is github.com/valyala/fasthttp's own benchmarks, built in bench/ (which pins the
// module); not in the quick matrix.
var FastHTTP = Workload{Name: "fasthttp", Pkg: "github.com/valyala/fasthttp", From: Bench,
	sets: func(quick bool) []Set {
		if quick {
			return nil
		}
		return []Set{{Name: "fasthttp", Expect: []string{"ClientGetTimeoutFastServer", "ClientGetEndToEnd10TCP",
			"NetHTTPClientGetEndToEnd10TCP", "ServerTimeoutError"},
			About: "github.com/valyala/fasthttp's own benchmarks: GetTimeout, loopback TCP end to end"}}
	}}
