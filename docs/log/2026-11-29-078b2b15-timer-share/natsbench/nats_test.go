// Package natsbench measures an embedded nats-server for the timer-share entry of the lab log
// (docs/log/2026-11-29-078b2b15-timer-share.md): a share of CPU, not a figure to keep.
package natsbench

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

func start(b *testing.B) *server.Server {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true})
	if err != nil {
		b.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(5 * time.Second) {
		b.Fatal("not ready")
	}
	b.Cleanup(s.Shutdown)
	return s
}

// BenchmarkRequestReply: request/reply with a timeout per request, 64 clients over 8 connections,
// 8 responders.
func BenchmarkRequestReply(b *testing.B) {
	s := start(b)
	for range 8 {
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		nc.QueueSubscribe("svc", "q", func(m *nats.Msg) { m.Respond(m.Data) })
	}
	var conns []*nats.Conn
	for range 8 {
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		conns = append(conns, nc)
	}
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		nc := conns[n.Add(1)%int64(len(conns))]
		msg := []byte("hello")
		for pb.Next() {
			if _, err := nc.Request("svc", msg, time.Second); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkFanout: one publisher, 100 subscribers on their own connections.
func BenchmarkFanout(b *testing.B) {
	s := start(b)
	var got atomic.Int64
	for range 100 {
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		nc.Subscribe("fan", func(*nats.Msg) { got.Add(1) })
		nc.Flush()
	}
	pub, _ := nats.Connect(s.ClientURL())
	defer pub.Close()
	msg := []byte(fmt.Sprintf("%064d", 1))
	b.ResetTimer()
	for range b.N {
		pub.Publish("fan", msg)
	}
	pub.Flush()
}
