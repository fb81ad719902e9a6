package server

import (
	"errors"
	"net"
	"strconv"
	"syscall"
	"time"
)

// DefaultMaxConns is the most connections served at once when
// Config.MaxConns is zero: far more than a class opens, and well under the
// open-file limit Go raises itself to on start.
const DefaultMaxConns = 2000

// Bounds of the pause before accepting again after a temporary failure.
const (
	minAcceptPause = 5 * time.Millisecond
	maxAcceptPause = time.Second
)

// guardedListener keeps fasthttp serving when connections run short, and
// keeps strangers from taking the connections the class needs.
//
// fasthttp ends Serve on any accept error but a timeout, so running out of
// file descriptors (EMFILE, ENFILE) would end the server and every live
// run with it. This listener retries those errors after a growing pause
// instead, as net/http does: the waiting connections stay in the kernel's
// backlog until descriptors are free again. It also refuses connections
// past the cap with a 503 JSON answer, so that the limit is reached here,
// on purpose, rather than at the descriptor limit.
//
// Every connection starts as a stranger (see admission), with
// StrangerLimits.Idle to start its first request: fasthttp sets its read
// timeout only once a request has begun when it reduces memory use, so a
// client that connects and says nothing would stay forever.
type guardedListener struct {
	net.Listener
	admission *admission
	idle      time.Duration
}

func guardListener(ln net.Listener, maxConns int, strangers StrangerLimits) *guardedListener {
	return &guardedListener{Listener: ln, admission: newAdmission(maxConns, strangers), idle: strangers.Idle}
}

// Accept returns the next connection within the caps. It returns an error
// only when the listener is closed or fails for good.
func (l *guardedListener) Accept() (net.Conn, error) {
	pause := time.Duration(0)
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			if !temporary(err) {
				return nil, err
			}
			pause = min(max(2*pause, minAcceptPause), maxAcceptPause)
			time.Sleep(pause)
			continue
		}
		pause = 0
		ac, refusal := l.admission.admit(c, time.Now())
		if refusal != nil {
			refuse(c, refusal)
			continue
		}
		_ = c.SetReadDeadline(time.Now().Add(l.idle))
		return ac, nil
	}
}

// temporary reports whether accepting may work again later.
func temporary(err error) bool {
	switch {
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE),
		errors.Is(err, syscall.ENOBUFS), errors.Is(err, syscall.ENOMEM),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.ECONNRESET):
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// refuse answers a connection there is no room for with a 503 and the
// JSON body given, and closes it. The answer is small enough for any
// socket's send buffer; the deadline only keeps a broken peer from
// stalling the accept loop.
func refuse(c net.Conn, body []byte) {
	_ = c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	_, _ = c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + string(body)))
	_ = c.Close()
}
