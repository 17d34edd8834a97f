// Package httptimeout measures a loopback net/http server whose handler bounds every request with
// context.WithTimeout, driven by a bounded number of clients that set their own timeouts.
package httptimeout

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"timerlab/bench/units"
)

// expired counts the requests whose 100 ms handler context was done before they were answered:
// it happens only when the machine is overloaded, and is reported, not failed.
var expired atomic.Int64

func handler(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 100*time.Millisecond)
	defer cancel()
	select {
	case <-ctx.Done():
		expired.Add(1)
		http.Error(w, "timeout", http.StatusServiceUnavailable)
	default:
		io.WriteString(w, "ok")
	}
}

// BenchmarkHTTPWithTimeout: one op is one request. The server has read, write and idle timeouts;
// each request carries a 1 s client deadline and gets a 100 ms context in the handler. It reports
// expired/op, the share of requests whose handler context expired (503).
func BenchmarkHTTPWithTimeout(b *testing.B) {
	const clients = 16
	b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
		url := serve(b)
		client := &http.Client{Timeout: 5 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
		defer client.CloseIdleConnections()
		b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
		expired.Store(0)
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := get(client, url); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(expired.Load())/float64(b.N), units.Expired)
	})
}

func serve(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(handler), ReadTimeout: 5 * time.Second,
		WriteTimeout: 5 * time.Second, IdleTimeout: 30 * time.Second}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/"
}

func get(client *http.Client, url string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
		return fmt.Errorf("status %s", resp.Status)
	}
	return nil
}
