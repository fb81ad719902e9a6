package server

import (
	"net"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// requestLimits gives the OpenAI API's requests their larger body limit
// as soon as their headers are read, before the body is: the other
// endpoints keep their small one, so a client cannot make the server
// hold megabytes it will only refuse.
func (s *Server) requestLimits(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
	if limit := s.bodyLimit(h); limit != s.cfg.BodyLimit {
		return fasthttp.RequestConfig{MaxRequestBodySize: limit}
	}
	return fasthttp.RequestConfig{}
}

// bodyLimit is the largest body the request may send. The OpenAI API's
// larger one is only for a request with the operator's token, when one is
// needed: any other is refused all the same, and strangers, or a class
// with the viewer link, could otherwise make the server hold megabytes
// each.
func (s *Server) bodyLimit(h *fasthttp.RequestHeader) int {
	if !openAIRequest(h) || s.requestRole(h) != operator {
		return s.cfg.BodyLimit
	}
	return s.cfg.V1BodyLimit
}

// openAIRequest reports whether a request is the OpenAI API's. Fiber
// routes by the path as sent, whatever its case, and so does this.
func openAIRequest(h *fasthttp.RequestHeader) bool {
	uri := fasthttp.AcquireURI()
	defer fasthttp.ReleaseURI(uri)
	return uri.Parse(nil, h.RequestURI()) == nil && openAIPath(string(uri.PathOriginal()))
}

// refuseBody answers a body over the request's limit, and the status it
// answers with. One sent to the OpenAI API without the operator's token
// lacks the token, not room: it is told so, as authorize would, once what
// it sends is drained as far as a body of the API's may go, so that a
// client that forgot its key hears why rather than a reset.
func (s *Server) refuseBody(c *fiber.Ctx) (int, error) {
	h := &c.Request().Header
	if !openAIRequest(h) || s.requestRole(h) == operator {
		return fiber.StatusRequestEntityTooLarge, s.bodyTooLarge(c)
	}
	drainRefused(c.Context().Conn(), drainMax*s.cfg.V1BodyLimit, s.cfg.ReadTimeout)
	if s.requestRole(h) == viewer {
		return fiber.StatusForbidden, errViewerWatches
	}
	return fiber.StatusUnauthorized, refuseToken(c)
}

// bodyTooLarge refuses a body over the request's limit: it says the limit
// and, on the OpenAI API, how to raise it.
func (s *Server) bodyTooLarge(c *fiber.Ctx) *apiError {
	limit := s.bodyLimit(&c.Request().Header)
	drainRefused(c.Context().Conn(), drainMax*limit, s.cfg.ReadTimeout)
	if !isOpenAI(c) {
		return &apiError{Status: fiber.StatusRequestEntityTooLarge, Message: "the request body is too large: send at most " + byteSize(limit)}
	}
	return &apiError{Status: fiber.StatusRequestEntityTooLarge, Code: "request_too_large",
		Message: "the request body is too large: /v1 takes at most " + byteSize(limit) +
			" (the system prompt, tools and history together); start toolscope serve with a larger --v1-body-limit to allow more"}
}

// How much of a refused body is read, in multiples of the limit, and the
// pause in it that says the client has sent it all and waits.
const (
	drainMax   = 4
	drainPause = 500 * time.Millisecond
)

// drainRefused reads and drops what the client still sends of a refused
// body, up to most bytes and for at most within, until it pauses. The
// connection closes after the 413: closed with bytes still unread, it
// would be reset, and a client still writing (Node's fetch, for one)
// would see the reset instead of the answer. Nothing is kept.
func drainRefused(conn net.Conn, most int, within time.Duration) {
	end := time.Now().Add(within)
	buf := make([]byte, 32<<10)
	for read := 0; read < most; {
		deadline := time.Now().Add(drainPause)
		if deadline.After(end) {
			deadline = end
		}
		if conn.SetReadDeadline(deadline) != nil {
			return
		}
		n, err := conn.Read(buf)
		if read += n; err != nil {
			return
		}
	}
}
