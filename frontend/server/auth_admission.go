package server

import (
	"container/list"
	"net"
	"net/netip"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Defaults of StrangerLimits' fields left zero.
const (
	// DefaultStrangersPerAddr: a browser opens six connections to a server
	// at the most.
	DefaultStrangersPerAddr = 16
	DefaultStrangerIdle     = 5 * time.Second
	DefaultStrangerGrace    = time.Second
)

// StrangerLimits bound strangers: connections that have not shown a valid
// token yet (when toolscope asks for none, that have not yet made a
// request). A class's browsers show their token in their first request,
// milliseconds after they connect, so these bound what a stranger can
// hold, not what the class can. See admission.
type StrangerLimits struct {
	// Max is the most strangers kept at once, from all addresses, past
	// their grace; half of Config.MaxConns when zero. The rest is kept for
	// connections that have shown a token.
	Max int
	// PerAddr is the most strangers one client address keeps past their
	// grace; DefaultStrangersPerAddr when zero. In their grace it keeps
	// up to a quarter of Max, if that is more.
	PerAddr int
	// Idle is how long a new connection may wait before it starts its
	// first request; DefaultStrangerIdle when zero.
	Idle time.Duration
	// Grace is how long a new connection has to show its token before it
	// may be displaced; DefaultStrangerGrace when zero. It lets in a burst
	// from one address, such as a script's pool of connections opening at
	// once.
	Grace time.Duration
}

func (l *StrangerLimits) withDefaults(maxConns int) {
	if l.Max <= 0 {
		l.Max = max(maxConns/2, 1)
	}
	if l.PerAddr <= 0 {
		l.PerAddr = DefaultStrangersPerAddr
	}
	if l.Idle <= 0 {
		l.Idle = DefaultStrangerIdle
	}
	if l.Grace <= 0 {
		l.Grace = DefaultStrangerGrace
	}
}

// admission decides which connections are served, so that strangers
// cannot lock the class out. Connections that have shown a token
// (trusted) are limited only by max. A stranger past its grace is closed,
// the oldest first, to make room for a new connection:
//
//   - when its address keeps PerAddr strangers already, so that a flood
//     from one machine only ever displaces itself;
//   - when strangers number Max, which keeps the rest of max for trusted
//     connections, or when every slot is taken.
//
// The one that lingers longest without a token is the likeliest to have
// none. Strangers in their grace, a burst, may go past PerAddr and Max,
// but one address never keeps more than a quarter of Max (burstPerAddr),
// so that no single machine can fill the slots by opening connections
// faster than their grace runs out. A stranger that is answered is closed
// after its answer (see closeStrangers), so a refused request does not
// hold its connection for the keep-alive time.
type admission struct {
	mu        sync.Mutex
	max       int
	limits    StrangerLimits
	open      int                // connections counted, strangers included
	strangers *list.List         // of *admittedConn, oldest first
	byAddr    map[netip.Addr]int // strangers per client address
}

func newAdmission(max int, limits StrangerLimits) *admission {
	return &admission{max: max, limits: limits, strangers: list.New(), byAddr: map[netip.Addr]int{}}
}

// burstPerAddr is the most strangers one address keeps, in their grace or
// not.
func (a *admission) burstPerAddr() int {
	return max(a.limits.PerAddr, a.limits.Max/4)
}

// Why admit refuses a connection: the body of its 503.
var (
	tooManyConns    = []byte(`{"error":"toolscope is serving too many connections: try again in a moment"}`)
	tooManyFromAddr = []byte(`{"error":"too many connections from this address have not shown a token yet: try again in a moment"}`)
)

// admit returns c counted as a stranger, having closed the strangers it
// displaces, or nil and why there is no room for it.
func (a *admission) admit(c net.Conn, now time.Time) (*admittedConn, []byte) {
	ac := &admittedConn{Conn: c, admission: a, addr: clientAddr(c), since: now, counted: true}
	a.mu.Lock()
	displaced, refusal := a.makeRoom(ac, now)
	if refusal == nil {
		a.open++
		a.byAddr[ac.addr]++
		ac.stranger = a.strangers.PushBack(ac)
	}
	a.mu.Unlock()
	for _, s := range displaced {
		_ = s.Conn.Close() // fasthttp's read fails, and it closes s in turn
	}
	if refusal != nil {
		return nil, refusal
	}
	return ac, nil
}

// makeRoom displaces the strangers that must make way for ac, or says why
// there is no room. Called with a.mu held.
func (a *admission) makeRoom(ac *admittedConn, now time.Time) (displaced []*admittedConn, refusal []byte) {
	if a.byAddr[ac.addr] >= a.limits.PerAddr {
		if s := a.displace(now, func(s *admittedConn) bool { return s.addr == ac.addr }); s != nil {
			displaced = append(displaced, s)
		}
	}
	if a.byAddr[ac.addr] >= a.burstPerAddr() {
		return displaced, tooManyFromAddr
	}
	for a.strangers.Len() >= a.limits.Max || a.open >= a.max {
		s := a.displace(now, func(*admittedConn) bool { return true })
		if s == nil {
			break
		}
		displaced = append(displaced, s)
	}
	if a.open >= a.max {
		return displaced, tooManyConns
	}
	return displaced, nil
}

// displace stops counting the oldest stranger that matches, if its grace
// is over, and returns it, to be closed. Called with a.mu held.
func (a *admission) displace(now time.Time, matches func(*admittedConn) bool) *admittedConn {
	for e := a.strangers.Front(); e != nil; e = e.Next() {
		s := e.Value.(*admittedConn)
		if !matches(s) {
			continue
		}
		if now.Sub(s.since) < a.limits.Grace {
			return nil // the others are younger still
		}
		a.forget(s)
		return s
	}
	return nil
}

// forget stops counting c. Called with a.mu held.
func (a *admission) forget(c *admittedConn) {
	if !c.counted {
		return
	}
	a.forgetStranger(c)
	a.open--
	c.counted = false
}

// forgetStranger stops counting c as a stranger. Called with a.mu held.
func (a *admission) forgetStranger(c *admittedConn) {
	if c.stranger == nil {
		return
	}
	a.strangers.Remove(c.stranger)
	c.stranger = nil
	if a.byAddr[c.addr]--; a.byAddr[c.addr] == 0 {
		delete(a.byAddr, c.addr)
	}
}

// clientAddr is the address a connection comes from; IPv4 in IPv6 counts
// as IPv4.
func clientAddr(c net.Conn) netip.Addr {
	if tcp, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return tcp.AddrPort().Addr().Unmap()
	}
	return netip.Addr{}
}

// admittedConn is a connection admission counts until its first Close.
type admittedConn struct {
	net.Conn
	admission *admission
	addr      netip.Addr
	since     time.Time     // when it was accepted
	stranger  *list.Element // in admission.strangers; nil once trusted
	counted   bool          // false once closed or displaced
}

// trust counts c among the connections that have shown a token.
func (c *admittedConn) trust() {
	c.admission.mu.Lock()
	defer c.admission.mu.Unlock()
	c.admission.forgetStranger(c)
}

// isStranger reports whether c has not shown a token yet.
func (c *admittedConn) isStranger() bool {
	c.admission.mu.Lock()
	defer c.admission.mu.Unlock()
	return c.stranger != nil
}

func (c *admittedConn) Close() error {
	c.admission.mu.Lock()
	c.admission.forget(c)
	c.admission.mu.Unlock()
	return c.Conn.Close()
}

// closeStrangers closes a connection that is still a stranger once its
// request is answered: it showed no token, so whatever it asked was
// refused, and keeping it alive would let it hold a slot for nothing.
func closeStrangers(c *fiber.Ctx) error {
	err := c.Next()
	if conn, ok := c.Context().Conn().(*admittedConn); ok && conn.isStranger() {
		c.Context().SetConnectionClose()
	}
	return err
}

// trustConnection counts the request's connection among those that have
// shown a token.
func trustConnection(c *fiber.Ctx) {
	if conn, ok := c.Context().Conn().(*admittedConn); ok {
		conn.trust()
	}
}
