// Package quicbench measures quic-go over loopback for the timer-share entry of the lab log
// (docs/log/2026-11-29-078b2b15-timer-share.md): a share of CPU, not a figure to keep.
package quicbench

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
)

func tlsConfigs(t testing.TB) (*tls.Config, *tls.Config) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	pool := x509.NewCertPool()
	c, _ := x509.ParseCertificate(der)
	pool.AddCert(c)
	return &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"bench"}},
		&tls.Config{RootCAs: pool, ServerName: "localhost", NextProtos: []string{"bench"}}
}

// serve echoes each stream of each connection ln accepts.
func serve(ln *quic.Listener) {
	for {
		conn, err := ln.Accept(context.Background())
		if err != nil {
			return
		}
		go func() {
			for {
				s, err := conn.AcceptStream(context.Background())
				if err != nil {
					return
				}
				go func() { io.Copy(s, s); s.Close() }()
			}
		}()
	}
}

func setup(b *testing.B, conns int) []*quic.Conn {
	srvTLS, cliTLS := tlsConfigs(b)
	ln, err := quic.ListenAddr("127.0.0.1:0", srvTLS, &quic.Config{MaxIncomingStreams: 10000})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go serve(ln)
	var cs []*quic.Conn
	for range conns {
		c, err := quic.DialAddr(context.Background(), ln.Addr().String(), cliTLS, &quic.Config{KeepAlivePeriod: 5 * time.Second})
		if err != nil {
			b.Fatal(err)
		}
		cs = append(cs, c)
	}
	return cs
}

// BenchmarkRequests: small request/response on a new stream each, with a deadline, over 16 connections.
func BenchmarkRequests(b *testing.B) {
	cs := setup(b, 16)
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		buf := make([]byte, 64)
		i := 0
		for pb.Next() {
			i++
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			s, err := cs[i%len(cs)].OpenStreamSync(ctx)
			if err != nil {
				b.Error(err)
				cancel()
				return
			}
			s.SetDeadline(time.Now().Add(time.Second))
			s.Write(buf)
			s.Close()
			io.ReadFull(s, buf)
			cancel()
		}
	})
}

// BenchmarkStream: bulk transfer of 64 KB per op over one stream.
func BenchmarkStream(b *testing.B) {
	cs := setup(b, 1)
	s, err := cs[0].OpenStreamSync(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 64<<10)
	rbuf := make([]byte, 64<<10)
	b.SetBytes(int64(len(buf)))
	b.ResetTimer()
	for range b.N {
		s.Write(buf)
		io.ReadFull(s, rbuf)
	}
}
