// Package deadline measures deadline churn: deadlines moved earlier and later over and over, as
// servers with many idle connections do (golang/go#41699, #51654).
package deadline

import (
	"io"
	"math/rand/v2"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkDeadlineChurn moves the read deadlines of 1000 idle loopback TCP connections, each with
// a reader blocked on it, alternately 5 s and 10 s ahead.
func BenchmarkDeadlineChurn(b *testing.B) {
	b.Run("conns=1000", func(b *testing.B) {
		conns := idleConns(b, 1000)
		var next atomic.Uint64
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				i := next.Add(1)
				ahead := 5 * time.Second
				if i%2 == 0 {
					ahead = 10 * time.Second
				}
				if err := conns[i%uint64(len(conns))].SetReadDeadline(time.Now().Add(ahead)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// idleConns returns the server ends of n loopback connections whose clients never write; a
// goroutine reads from each until the benchmark's cleanup closes them.
func idleConns(b *testing.B, n int) []net.Conn {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	conns := make([]net.Conn, n)
	for i := range conns {
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		server, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { client.Close(); server.Close() })
		go io.Copy(io.Discard, server)
		conns[i] = server
	}
	return conns
}

// BenchmarkTimerResetChurn resets 50K timers alternately 5 s and 10 s ahead, the pattern of
// golang/go#41699's 50K goroutines.
func BenchmarkTimerResetChurn(b *testing.B) {
	b.Run("timers=50K", func(b *testing.B) {
		timers := make([]*time.Timer, 50_000)
		for i := range timers {
			timers[i] = time.AfterFunc(5*time.Second, func() {})
		}
		defer func() {
			for _, t := range timers {
				t.Stop()
			}
		}()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for i := rand.Uint64(); pb.Next(); i++ {
				ahead := 5 * time.Second
				if i%2 == 0 {
					ahead = 10 * time.Second
				}
				timers[i%uint64(len(timers))].Reset(ahead)
			}
		})
	})
}
