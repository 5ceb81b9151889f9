package handshake

import (
	"context"
	"testing"
)

// BenchmarkHandshake is one whole handshake over loopback: connect, four lines, both proofs.
func BenchmarkHandshake(b *testing.B) {
	a := startApp(b, Timeout)
	b.ReportAllocs()
	for b.Loop() {
		conn, err := Dial(context.Background(), a.info)
		if err != nil {
			b.Fatal(err)
		}
		conn.Close()
		if err := <-a.errs; err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProof is one proof's HMAC.
func BenchmarkProof(b *testing.B) {
	key := kaKey(b)
	b.ReportAllocs()
	for b.Loop() {
		proofOf(key, roleApp, kaPort, kaInstance, kaNc, kaNs)
	}
}
