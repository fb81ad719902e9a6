// Package nettest helps tests of clients that must cope with a server
// that is not there.
package nettest

import (
	"net"
	"testing"
)

// ClosedAddress returns a loopback host:port where nothing listens, so
// that connecting to it is refused at once.
func ClosedAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}
