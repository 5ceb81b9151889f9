package httprequest

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/config"
)

// pool is a client and its connections, shared through the runtime's table by every block
// whose TLS settings are the same: one pool of kept-alive connections per backend, whatever
// the number of blocks, and a reload's new build finds it warm.
type pool struct {
	client    *http.Client
	transport *http.Transport
}

// Close closes the idle connections; the last holder calls it.
func (p *pool) Close(context.Context) error {
	p.transport.CloseIdleConnections()
	return nil
}

// TestTransportKey is where `octo test` puts the transport that answers a case's calls from its
// stubs. A block that finds one there at Start sends through it instead of a pooled client,
// whatever its TLS settings, so no case reaches the network; the block's own code (templates,
// retries, status checks, the answer into the message) runs as in production.
const TestTransportKey = "http-transport:test"

// TestTransport is what TestTransportKey holds.
type TestTransport interface {
	runtime.Resource
	http.RoundTripper
}

// clientSpec is what a block's pool is made from, and the key it is shared under.
type clientSpec struct {
	shared *runtime.Shared
	key    string
	tls    *tls.Config // nil: Go's defaults
}

// Transport limits: many requests to one backend at once reuse connections (Go keeps only 2
// idle per host by default), and no phase of a call waits longer than its own bound besides
// the block's timeout.
const (
	maxIdleConns        = 512
	maxIdleConnsPerHost = 64
	idleConnTimeout     = 90 * time.Second
	dialTimeout         = 10 * time.Second
	tlsHandshakeTimeout = 10 * time.Second
	maxHeaderBytes      = 1 << 20
)

func (c clientSpec) open() (*pool, error) {
	tr := &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           maxIdleConns,
		MaxIdleConnsPerHost:    maxIdleConnsPerHost,
		IdleConnTimeout:        idleConnTimeout,
		TLSHandshakeTimeout:    tlsHandshakeTimeout,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: maxHeaderBytes,
		TLSClientConfig:        c.tls,
	}
	return &pool{client: &http.Client{Transport: tr, CheckRedirect: checkRedirect}, transport: tr}, nil
}

// maxRedirects is how many redirects one call follows, as browsers and Go's default do.
const maxRedirects = 10

// redirectError is a redirect the block does not follow.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }

// checkRedirect follows a redirect unless it leaves https for plain http, and lets no
// credential go to another host: net/http drops Authorization and Cookie there, but not an
// X-Api-Key or a token header, which the block drops too (the names sensitive says).
func checkRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	switch {
	case len(via) >= maxRedirects:
		return &redirectError{"the backend redirected more than " + strconv.Itoa(maxRedirects) + " times"}
	case first.Scheme == "https" && req.URL.Scheme != "https":
		return &redirectError{"the backend redirected from https to plain http"}
	}
	// net/http sets the Referer to the URL that redirected, query and all (?api_key=…): a
	// backend call has no page to name, so none is sent.
	req.Header.Del("Referer")
	if req.URL.Host != first.Host {
		for name := range req.Header {
			if sensitive(name) {
				delete(req.Header, name)
			}
		}
	}
	return nil
}

// buildClientSpec reads the TLS files now, so a missing or unusable one is a build error at its
// line. The pool's key holds a digest of their contents: a reload after a certificate changed
// gets a new pool, and one that changed nothing keeps the old.
func buildClientSpec(b *runtime.Build, s *Settings) clientSpec {
	c := clientSpec{shared: b.Shared(), key: "http-client:default"}
	t := &s.TLS
	if *t == (TLSSettings{}) {
		return c
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.InsecureSkipVerify}
	digest := sha256.New()
	read := func(label string, field *string) []byte {
		data, err := config.ReadFile(resolve(b, *field))
		if err != nil {
			b.Errorf(field, "%v", err)
			return nil
		}
		digest.Write([]byte(label + strconv.Itoa(len(data)) + ":"))
		digest.Write(data)
		return data
	}
	if t.CAFile != "" {
		if pem := read("ca", &t.CAFile); pem != nil {
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				b.Errorf(&t.CAFile, "caFile %s holds no PEM certificate", t.CAFile)
			}
		}
	}
	switch {
	case t.CertFile != "" && t.KeyFile == "":
		b.Errorf(&t.CertFile, "certFile needs keyFile, its private key")
	case t.KeyFile != "" && t.CertFile == "":
		b.Errorf(&t.KeyFile, "keyFile needs certFile, the certificate it belongs to")
	case t.CertFile != "":
		cert, key := read("cert", &t.CertFile), read("key", &t.KeyFile)
		if cert != nil && key != nil {
			pair, err := tls.X509KeyPair(cert, key)
			if err != nil {
				b.Errorf(&t.CertFile, "certFile and keyFile: %v", err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
	}
	if t.InsecureSkipVerify {
		b.Logger().Warn("tls.insecureSkipVerify is set: server certificates are not checked")
	}
	digest.Write([]byte("\x00" + t.ServerName + "\x00" + strconv.FormatBool(t.InsecureSkipVerify)))
	c.tls, c.key = cfg, "http-client:tls "+hex.EncodeToString(digest.Sum(nil)[:16])
	return c
}

// resolve makes a relative path relative to the YAML file that names it, as template resources
// are, so a config runs from any working directory.
func resolve(b *runtime.Build, path string) string {
	if filepath.IsAbs(path) || b.At.File == "" {
		return path
	}
	return filepath.Join(filepath.Dir(b.At.File), path)
}
