package server

import (
	"net"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"
	qrcode "github.com/skip2/go-qrcode"

	"github.com/toolscope/toolscope/frontend/web"
	"github.com/toolscope/toolscope/runs"
)

// What the viewer link needs: the link and its QR code, for the operator
// to share, and the newest run, for viewers to follow.

// latestRun answers GET /api/runs/latest: the newest run kept that the
// request may see (see shares), with where to follow its events, or 204
// No Content before the first. The viewer page asks every few seconds and
// replays each new run from its first event, so it misses nothing by
// asking late; a poll also survives restarts and proxies that a
// long-lived stream of run announcements would have to be nursed through.
func (s *Server) latestRun(c *fiber.Ctx) error {
	var run *runs.Run
	var ok bool
	if s.sharesAll(c) {
		run, ok = s.cfg.Hub.Latest()
	} else {
		run, ok = s.cfg.Hub.Latest(runs.SourcePage)
	}
	if !ok {
		return c.SendStatus(fiber.StatusNoContent)
	}
	out := started(run)
	out["message"] = run.Message
	return writeJSON(c, fiber.StatusOK, out)
}

// shares reports whether the request may see run. A viewer sees the
// page's runs, which the operator starts in front of the class, but not
// the API's (/v1, /api/query) unless Config.ShareAPIRuns: an app's
// requests carry its system prompt, and whatever secrets that holds.
func (s *Server) shares(c *fiber.Ctx, run *runs.Run) bool {
	return run.Source == runs.SourcePage || s.sharesAll(c)
}

// sharesAll reports whether the request may see runs of every source.
func (s *Server) sharesAll(c *fiber.Ctx) bool {
	return s.cfg.ShareAPIRuns || roleOfRequest(c) != viewer
}

// pageAudience tells the page whom it is for: a viewer gets the read-only
// page; an operator, when toolscope asks for tokens, the link to share.
func (s *Server) pageAudience(c *fiber.Ctx) error {
	var a web.Audience
	switch {
	case roleOfRequest(c) == viewer:
		a.Viewer = true
	case s.cfg.Access.Tokens.required():
		a.ShareURL = s.viewerURL(c)
	}
	c.SetUserContext(web.WithAudience(c.UserContext(), a))
	return c.Next()
}

// shareQR answers GET /api/share/qr.png: the viewer link as a QR code,
// made here so that the page works offline.
func (s *Server) shareQR(c *fiber.Ctx) error {
	if !s.cfg.Access.Tokens.required() {
		return fiber.NewError(fiber.StatusNotFound, "there is no viewer link: toolscope asks for no token, so its address is all anyone needs")
	}
	png, err := qrcode.Encode(s.viewerURL(c), qrcode.Medium, 320)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Type("png")
	return c.Send(png)
}

// viewerURL is the link that lets someone watch: at the host the page was
// opened at when other machines can use it too, else at the best of
// Access.ShareHosts.
func (s *Server) viewerURL(c *fiber.Ctx) string {
	host := c.Get(fiber.HeaderHost)
	if !s.othersReach(host) && len(s.cfg.Access.ShareHosts) > 0 {
		host = s.cfg.Access.ShareHosts[0]
	}
	return "http://" + host + "/?token=" + s.cfg.Access.Tokens.Viewer
}

// othersReach reports whether other machines can open this server at the
// name in a Host header: an IP address other than loopback, or an allowed
// name.
func (s *Server) othersReach(host string) bool {
	name := hostName(host)
	if ip := net.ParseIP(name); ip != nil {
		return !ip.IsLoopback()
	}
	return s.allowedName(name)
}

// ReachableAt lists the host:port pairs at which other machines may reach
// a listener on addr: its own address, or for one on every interface
// (0.0.0.0, ::) each interface's, best first (see interfaceIPs). It lists
// nothing for loopback.
func ReachableAt(addr net.Addr) []string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || tcp.IP.IsLoopback() {
		return nil
	}
	ips := []net.IP{tcp.IP}
	if tcp.IP.IsUnspecified() {
		ips = interfaceIPs()
	}
	var hosts []string
	for _, ip := range ips {
		hosts = append(hosts, net.JoinHostPort(ip.String(), strconv.Itoa(tcp.Port)))
	}
	return hosts
}

// interfaceIPs lists this machine's addresses that fit in a URL (not
// loopback, nor link-local, which would need a zone), IPv4 first since
// people type them. The address the default route leaves from comes
// first of all: the others are often bridges to containers or virtual
// machines that no one in the room can reach.
func interfaceIPs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
			ips = append(ips, n.IP)
		}
	}
	out := outboundIP()
	rank := func(ip net.IP) int {
		switch {
		case ip.Equal(out):
			return 0
		case ip.To4() != nil:
			return 1
		}
		return 2
	}
	slices.SortStableFunc(ips, func(a, b net.IP) int { return rank(a) - rank(b) })
	return ips
}

// outboundIP is the address the default route leaves from, or nil when
// there is none. Connecting a UDP socket sends nothing: it only asks the
// kernel for a route. 192.0.2.1 is reserved for documentation.
func outboundIP() net.IP {
	conn, err := net.Dial("udp", "192.0.2.1:9")
	if err != nil {
		return nil
	}
	defer conn.Close()
	if a, ok := conn.LocalAddr().(*net.UDPAddr); ok {
		return a.IP
	}
	return nil
}
