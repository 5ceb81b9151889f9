package httprequest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/octo-run/octo/runtime"
)

// testPKI is a CA made for one test, with a server certificate for 127.0.0.1 and a client
// certificate it signed, written as PEM files into dir.
type testPKI struct {
	dir        string
	caPool     *x509.CertPool
	serverCert tls.Certificate
}

func newPKI(t *testing.T) *testPKI {
	t.Helper()
	p := &testPKI{dir: t.TempDir(), caPool: x509.NewCertPool()}
	caKey := newKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "octo test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	p.caPool.AddCert(ca)
	p.write(t, "ca.pem", "CERTIFICATE", caDER)

	issue := func(serial int64, name string, usage x509.ExtKeyUsage, ips []net.IP) (tls.Certificate, []byte, []byte) {
		key := newKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: ips,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
		keyPEM := pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		return pair, certPEM, keyPEM
	}
	p.serverCert, _, _ = issue(2, "127.0.0.1", x509.ExtKeyUsageServerAuth, []net.IP{net.IPv4(127, 0, 0, 1)})
	_, clientPEM, clientKey := issue(3, "octo client", x509.ExtKeyUsageClientAuth, nil)
	p.writeFile(t, "client.pem", clientPEM)
	p.writeFile(t, "client-key.pem", clientKey)
	return p
}

func newKey(t *testing.T) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func (p *testPKI) write(t *testing.T, name, typ string, der []byte) {
	p.writeFile(t, name, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}))
}

func (p *testPKI) writeFile(t *testing.T, name string, data []byte) {
	if err := os.WriteFile(filepath.Join(p.dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// server is an https backend with the PKI's server certificate that says who called; mutual
// asks for a client certificate the CA signed.
func (p *testPKI) server(t *testing.T, mutual bool) *httptest.Server {
	return p.serve(t, mutual, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		who := "anonymous"
		if len(r.TLS.PeerCertificates) > 0 {
			who = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		io.WriteString(w, `{"client": "`+who+`"}`)
	})
}

// serve is an https backend with the PKI's server certificate answering with h.
func (p *testPKI) serve(t *testing.T, mutual bool, h http.HandlerFunc) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{p.serverCert}}
	if mutual {
		srv.TLS.ClientAuth, srv.TLS.ClientCAs = tls.RequireAndVerifyClientCert, p.caPool
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // refused handshakes are what some cases test
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestTLSWithATestCA(t *testing.T) {
	cases := []struct {
		name, tls string
		mutual    bool
		// want is the answer's body, or the error's message when fail is set
		want string
		fail bool
	}{
		{"the CA file makes the server trusted", "{ caFile: ca.pem }", false, `{"client": "anonymous"}`, false},
		{"a client certificate proves who calls", "{ caFile: ca.pem, certFile: client.pem, keyFile: client-key.pem }", true, `{"client": "octo client"}`, false},
		{"without the CA the server is not trusted, and that is not retried", "{}", false, "the backend's TLS certificate is not trusted", true},
		{"a server name the certificate does not carry is not trusted", "{ caFile: ca.pem, serverName: api.example.com }", false, "the backend's TLS certificate is not trusted", true},
		{"insecureSkipVerify trusts any certificate", "{ insecureSkipVerify: true }", false, `{"client": "anonymous"}`, false},
	}
	pki := newPKI(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := pki.server(t, c.mutual)
			env := map[string]string{"BACKEND": srv.URL}
			text := flowOf(blockOf("          url: ${BACKEND}/who\n          retries: 2\n          tls: "+c.tls+"\n"), env)
			r := startIn(t, pki.dir, text, env)
			m, err := r.run(t, `{}`)
			if c.fail {
				var re *RequestError
				if !errors.As(err, &re) || re.Message() != c.want || re.Attempts != 1 {
					t.Fatalf("got %v, want %q after one attempt", err, c.want)
				}
				if !strings.Contains(re.Error(), "x509: certificate") {
					t.Errorf("the log text does not say why: %s", re.Error())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(m.Raw()) != c.want {
				t.Fatalf("answer %s, want %s", m.Raw(), c.want)
			}
		})
	}
}

// Blocks with the same TLS settings share one pool, in a build and across a reload: the next
// build's calls go over the connection the last build opened.
func TestBlocksShareOnePooledClient(t *testing.T) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{}`)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	pki := newPKI(t)
	env := map[string]string{"BACKEND": srv.URL}
	text := flowOf(blockOf("          url: ${BACKEND}/a\n")+blockOf("          url: ${BACKEND}/b\n"), env) + `
  - name: g
    source: { connector: api, settings: { path: /g } }
    process:
      - type: http-request
        settings: { url: "${BACKEND}/c", tls: { caFile: ca.pem } }
`
	shared := runtime.NewShared()
	opts := runtime.Options{Shared: shared, Unit: "u", Logger: slog.New(slog.DiscardHandler)}
	first := startService(t, pki.dir, text, env, opts)
	blocks := func(svc *runtime.Service) (a, b, c *Block) {
		return svc.Instance("flows.f.process[0]").(*Block), svc.Instance("flows.f.process[1]").(*Block), svc.Instance("flows.g.process[0]").(*Block)
	}
	a, b, c := blocks(first)
	if a.pool != b.pool || a.pool == c.pool {
		t.Fatalf("pools: a %p b %p c %p; want a and b to share one, c its own", a.pool, b.pool, c.pool)
	}
	run := func(svc *runtime.Service) {
		if _, err := svc.Instance("flows.f").(*runtime.Flow).Run(context.Background(), runtime.NewMessage(nil)); err != nil {
			t.Fatal(err)
		}
	}
	run(first)

	second := startService(t, pki.dir, text, env, opts)
	if err := first.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if a2, _, _ := blocks(second); a2.pool != a.pool {
		t.Fatal("the reloaded build made a new pool")
	}
	run(second)
	if n := conns.Load(); n != 1 {
		t.Errorf("the backend saw %d connections, want 1 for both blocks in both builds", n)
	}
	if err := second.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, k := range shared.Keys() {
		if strings.HasPrefix(k, "http-client") {
			t.Errorf("%s is still held after the last build stopped", k)
		}
	}
}

func TestRedirects(t *testing.T) {
	pki := newPKI(t)
	other, otherSrv := newRecorder(t, answerJSON(200, `{"from": "other"}`))
	redirectTo := func(target string) func(http.ResponseWriter, *http.Request) {
		return func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) }
	}
	var loop *httptest.Server
	loop = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, loop.URL+"/again", http.StatusFound)
	}))
	t.Cleanup(loop.Close)
	cases := []struct {
		name string
		url  string
		// want is the answer's body, or the error's message when fail is set
		want string
		fail bool
	}{
		{"a redirect to another host is followed without the credentials", "", `{"from": "other"}`, false},
		{"a redirect from https to http is refused", "https", "the backend redirected from https to plain http", true},
		{"a redirect loop ends after 10", loop.URL, "the backend redirected more than 10 times", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := c.url
			switch url {
			case "":
				_, srv := newRecorder(t, redirectTo(otherSrv.URL+"/moved"))
				url = srv.URL
			case "https":
				url = pki.serve(t, false, redirectTo(otherSrv.URL+"/moved")).URL
			}
			env := map[string]string{"BACKEND": url}
			r := startIn(t, pki.dir, flowOf(blockOf(`          url: ${BACKEND}/start?api_key=q-9012
          retries: 2
          headers: { Authorization: "Bearer tok-1234", X-Api-Key: key-5678, X-Trace: t-1 }
          tls: { caFile: ca.pem }
`), env), env)
			m, err := r.run(t, `{}`)
			if c.fail {
				var re *RequestError
				if !errors.As(err, &re) || re.Message() != c.want || re.Attempts != 1 {
					t.Fatalf("got %v, want %q after one attempt", err, c.want)
				}
				return
			}
			if err != nil || string(m.Raw()) != c.want {
				t.Fatalf("got %s %v, want %s", m.Raw(), err, c.want)
			}
			got := other.requests()
			h := got[len(got)-1].header
			if h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" || h.Get("X-Trace") != "t-1" {
				t.Errorf("the other host got Authorization %q, X-Api-Key %q, X-Trace %q; want only X-Trace",
					h.Get("Authorization"), h.Get("X-Api-Key"), h.Get("X-Trace"))
			}
			if ref := h.Get("Referer"); ref != "" {
				t.Errorf("the other host got the Referer %q (the query's api_key with it)", ref)
			}
		})
	}
}
