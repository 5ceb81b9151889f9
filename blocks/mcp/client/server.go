package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/octo-run/octo/connectors/http/httpmsg"
	mcpclient "github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/runtime"
)

// serverSpec is what a block's session is made from, and the key it is shared under.
type serverSpec struct {
	shared *runtime.Shared
	key    string
	opts   mcpclient.Options
	// label names the server in errors a caller may read: the URL's origin, or the program.
	label string
}

func buildServer(b *runtime.Build, s *Settings) serverSpec {
	ss := &s.Server
	spec := serverSpec{shared: b.Shared(), opts: mcpclient.Options{
		URL: ss.URL, Transport: mcpclient.Transport(ss.Transport), Timeout: ss.Timeout,
		MaxMessageBytes: ss.MaxBytes, Logger: b.Logger(),
	}}
	switch {
	case ss.URL == "" && len(ss.Command) == 0:
		b.Errorf(ss, "set url (an HTTP server) or command (a stdio server)")
	case ss.URL != "" && len(ss.Command) > 0:
		b.Errorf(&ss.Command, "set url or command, not both")
	case ss.URL != "":
		spec.label = checkURL(b, ss)
		spec.opts.Headers = buildHeaders(b, ss)
	default:
		spec.label = filepath.Base(ss.Command[0])
		spec.opts.Command, spec.opts.Env, spec.opts.Dir = command(b, ss)
	}
	spec.opts.Transport = transport(b, ss)
	spec.key = spec.digest()
	return spec
}

// checkURL checks an absolute http(s) URL and returns its origin, which errors name (a path
// or query may hold what callers should not read).
func checkURL(b *runtime.Build, ss *ServerSettings) string {
	u, err := url.Parse(ss.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		b.Errorf(&ss.URL, "url %q: expected an absolute http or https URL", ss.URL)
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// transport checks the transport against url or command.
func transport(b *runtime.Build, ss *ServerSettings) mcpclient.Transport {
	t := mcpclient.Transport(ss.Transport)
	switch {
	case t == mcpclient.TransportStdio && ss.URL != "":
		b.Errorf(&ss.Transport, "transport stdio starts a command; a url is reached over streamable or sse")
	case len(ss.Command) > 0 && t != mcpclient.TransportStdio && t != mcpclient.TransportAuto:
		b.Errorf(&ss.Transport, "a command is spoken to over stdio, not %s", t)
	case len(ss.Headers) > 0 && ss.URL == "":
		b.Errorf(&ss.Headers, "headers are sent to a url; a command gets env instead")
	}
	return t
}

// command resolves the program (octo is this binary) and the working folder (relative to the
// config file), and lists env in name order.
func command(b *runtime.Build, ss *ServerSettings) (cmd, env []string, dir string) {
	cmd = slices.Clone(ss.Command)
	if cmd[0] == "octo" {
		if self, err := os.Executable(); err == nil {
			cmd[0] = self
		}
	}
	for _, k := range slices.Sorted(maps.Keys(ss.Env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			b.Errorf(b.Positions().Key(ss.Env, k), "env %q: a name must be non-empty, without = or NUL", k)
		}
		env = append(env, k+"="+ss.Env[k])
	}
	dir = ss.Dir
	if base := b.At.File; !filepath.IsAbs(dir) && base != "" {
		dir = filepath.Join(filepath.Dir(base), dir)
	}
	return cmd, env, dir
}

// buildHeaders renders the headers once: they may use env only, as a shared session carries
// no one message's values.
func buildHeaders(b *runtime.Build, ss *ServerSettings) http.Header {
	h := http.Header{}
	empty := runtime.NewMessage(nil)
	for _, name := range slices.Sorted(maps.Keys(ss.Headers)) {
		t := ss.Headers[name]
		if !httpmsg.ValidHeaderName(name) {
			b.Errorf(b.Positions().Key(ss.Headers, name), "header name %q: only letters, digits and !#$%%&'*+-.^_`|~ are allowed", name)
			continue
		}
		v, err := t.Render(empty)
		switch {
		case err != nil:
			b.Errorf(b.Positions().Key(ss.Headers, name), "header %s: %v (a header may use env only: it is rendered once, when the block starts)", name, err)
		case strings.ContainsAny(v, "\r\n\x00"):
			b.Errorf(b.Positions().Key(ss.Headers, name), "header %s: a value must not hold a line break or NUL", name)
		}
		h.Set(name, v)
	}
	return h
}

// digest keys the shared session by everything that makes it: blocks that name the same
// server the same way share one session.
func (s serverSpec) digest() string {
	o := s.opts
	b, _ := json.Marshal([]any{o.URL, o.Command, o.Env, o.Dir, o.Transport, o.Headers, o.Timeout, o.MaxMessageBytes})
	sum := sha256.Sum256(b)
	return "mcp-client:" + hex.EncodeToString(sum[:12])
}

func (s serverSpec) open() (*pool, error) { return &pool{opts: s.opts}, nil }

// pool is one server's session, shared by every block that names it: dialled on first use and
// again after it broke (a stdio server that exited, an event stream that ended).
type pool struct {
	opts   mcpclient.Options
	mu     sync.Mutex
	c      *mcpclient.Client
	closed bool
}

// client returns the live session, dialling within ctx when there is none.
func (p *pool) client(ctx context.Context) (*mcpclient.Client, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, mcpclient.ErrClosed
	}
	if p.c != nil && p.c.Err() == nil {
		return p.c, nil
	}
	if p.c != nil {
		p.opts.Logger.Info("the MCP session ended; connecting again", "err", p.c.Err())
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = p.c.Close(cctx)
		cancel()
		p.c = nil
	}
	c, err := mcpclient.Dial(ctx, p.opts)
	if err != nil {
		return nil, err
	}
	p.c = c
	return c, nil
}

// Close ends the session; the last holder calls it.
func (p *pool) Close(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.c == nil {
		return nil
	}
	return p.c.Close(ctx)
}
