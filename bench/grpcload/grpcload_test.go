// Package grpcload drives google.golang.org/grpc over loopback with per-call deadlines: every call
// sets a client timer and sends a grpc-timeout header from which the server makes a context with
// its own deadline timer; keepalive adds the transport's timers.
package grpcload

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
)

// BenchmarkGRPCUnaryDeadline: one op is one health check RPC with a 1 s deadline.
func BenchmarkGRPCUnaryDeadline(b *testing.B) {
	for _, clients := range []int{1, 16} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			client := dial(b, serve(b))
			b.SetParallelism((clients + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := check(client); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func serve(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	srv := grpc.NewServer(grpc.KeepaliveParams(keepalive.ServerParameters{Time: time.Second, Timeout: time.Second}))
	healthpb.RegisterHealthServer(srv, health.NewServer())
	go srv.Serve(ln)
	b.Cleanup(srv.Stop)
	return ln.Addr().String()
}

func dial(b *testing.B, addr string) healthpb.HealthClient {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return healthpb.NewHealthClient(conn)
}

func check(client healthpb.HealthClient) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	resp, err := client.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return err
	}
	if resp.Status != healthpb.HealthCheckResponse_SERVING {
		return fmt.Errorf("health status %v", resp.Status)
	}
	return nil
}
