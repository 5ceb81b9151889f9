package httprequest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/jsonv"
)

// answer is a response the block took: its status, headers and whole body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// excerptRead is how much of a failed answer is read: enough to mask a secret that starts in
// the excerpt, little enough that a failure costs no more than a small answer. The rest is
// dropped with the connection.
const excerptRead = 4 << 10

// maxPrealloc is the most read allocates before the body arrives.
const maxPrealloc = 1 << 20

// attempt sends out once. A status the block does not accept is a *StatusError, returned with
// the answer so the retry can read its Retry-After; any other failure is a *RequestError.
func (blk *Block) attempt(ctx context.Context, out *outgoing) (res *answer, err error) {
	if runtime.Tracing() {
		var span runtime.Span
		ctx, span = runtime.StartSpan(ctx, out.method+" "+out.url.Host, runtime.SpanClient,
			runtime.Attr{Key: "http.request.method", Value: out.method}, runtime.Attr{Key: "server.address", Value: out.url.Hostname()},
			runtime.Attr{Key: "url.full", Value: out.shown()})
		defer func() {
			if res != nil {
				span.SetAttributes(runtime.Attr{Key: "http.response.status_code", Value: res.status})
			}
			span.End(err)
		}()
	}
	var body io.Reader
	if out.body != nil {
		body = bytes.NewReader(out.body)
	}
	// The URL is parsed already: the request takes it as it is, rather than as text to parse
	// again. Neither it nor the headers are changed by sending them.
	req, err := http.NewRequestWithContext(ctx, out.method, "", body)
	if err != nil {
		return nil, &RequestError{Reason: "the request could not be built", Request: out.shown(), Err: unwrapURL(err)}
	}
	req.URL, req.Header, req.Host = out.url, passOn(ctx, out.header), cmp.Or(out.host, out.url.Host)
	resp, err := blk.pool.client.Do(req)
	if err != nil {
		return nil, connectionError(out, err)
	}
	defer resp.Body.Close()
	res = &answer{status: resp.StatusCode, header: resp.Header}
	if !blk.accepted(resp.StatusCode) {
		head, _ := io.ReadAll(io.LimitReader(resp.Body, excerptRead))
		return res, &StatusError{Status: resp.StatusCode, Excerpt: excerpt(head, out.secrets()), Request: out.shown()}
	}
	if res.body, err = blk.read(resp); err != nil {
		var re *RequestError
		if errors.As(err, &re) {
			re.Request = out.shown()
			return nil, re
		}
		return nil, &RequestError{Reason: "the backend's answer broke off", Request: out.shown(), Err: err, retry: true}
	}
	return res, nil
}

// passOn is h with what a backend needs to follow the request it serves: the request's id
// (X-Request-Id, unless the block sets one) and, when tracing, its trace context
// (traceparent). h is shared by every call, so it is copied when something is added.
func passOn(ctx context.Context, h http.Header) http.Header {
	id := runtime.RequestID(ctx)
	addID := id != "" && len(h.Values("X-Request-Id")) == 0
	if !addID && !runtime.Tracing() {
		return h
	}
	h = h.Clone()
	if h == nil {
		h = http.Header{}
	}
	if addID {
		h.Set("X-Request-Id", id)
	}
	runtime.InjectTrace(ctx, h.Set)
	return h
}

// read reads the body of an accepted answer, up to maxResponseBytes.
func (blk *Block) read(resp *http.Response) ([]byte, error) {
	tooLarge := &RequestError{Reason: fmt.Sprintf("the backend's answer is larger than maxResponseBytes (%d bytes)", blk.maxBytes)}
	if resp.ContentLength > blk.maxBytes {
		return nil, tooLarge
	}
	size := int64(512)
	if resp.ContentLength > 0 {
		// One more, so ReadFrom sees the end without growing; at most a little up front, so a
		// length announced and never sent holds no memory.
		size = min(resp.ContentLength+1, maxPrealloc)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	if _, err := buf.ReadFrom(io.LimitReader(resp.Body, blk.maxBytes+1)); err != nil {
		return nil, err
	}
	if int64(buf.Len()) > blk.maxBytes {
		return nil, tooLarge
	}
	return buf.Bytes(), nil
}

// connectionError is a failure of Do: no answer came. Certificates that do not verify fail the
// same way every time, so only other failures are retried.
func connectionError(out *outgoing, err error) *RequestError {
	err = unwrapURL(err)
	var redirect *redirectError
	if errors.As(err, &redirect) {
		return &RequestError{Reason: redirect.reason, Request: out.shown()}
	}
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
	)
	if errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid) || errors.As(err, &verify) {
		return &RequestError{Reason: "the backend's TLS certificate is not trusted", Request: out.shown(), Err: err}
	}
	return &RequestError{Reason: "could not reach the backend", Request: out.shown(), Err: err, retry: true}
}

// unwrapURL drops the *url.Error net/http wraps its errors in: its text repeats the URL, query
// values included, which may hold secrets.
func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// deliver puts an accepted answer into m: its body as the body and vars.http its status and
// headers, or all of it into vars.NAME.
func (blk *Block) deliver(m *runtime.Message, res *answer, out *outgoing) error {
	isJSON, err := jsonBody(res)
	if err != nil {
		return &RequestError{Reason: err.Error(), Request: out.shown()}
	}
	headers := make(map[string]string, len(res.header))
	for k, v := range res.header {
		if len(v) > 0 {
			headers[k] = v[0]
		}
	}
	if blk.into == "" {
		switch {
		case len(res.body) == 0:
			m.ClearBody()
		case isJSON:
			m.SetRaw(res.body) // decoded when a later block first reads it
		default:
			m.SetBody(string(res.body))
		}
		m.SetVar("http", map[string]any{"status": res.status, "headers": headers})
		return nil
	}
	var body any
	switch {
	case len(res.body) == 0:
	case isJSON:
		if body, err = jsonv.Decode(res.body); err != nil {
			return &RequestError{Reason: "the backend's answer holds JSON octo does not take", Request: out.shown(), Err: err}
		}
	default:
		body = string(res.body)
	}
	m.SetVar(blk.into, map[string]any{"status": res.status, "headers": headers, "body": body})
	return nil
}

// jsonBody reports whether an answer's body is JSON: its Content-Type says so (application/json
// or a +json type), or it has none and the body is JSON. A body that claims to be JSON and is
// not is an error here, where it is the backend's, not later in a block that reads it.
func jsonBody(res *answer) (bool, error) {
	ct := res.header.Get("Content-Type")
	if ct == "" {
		return len(res.body) > 0 && jsonv.Valid(res.body), nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || !(mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		return false, nil
	}
	if len(res.body) > 0 && !jsonv.Valid(res.body) {
		return false, errors.New("the backend's answer is not valid JSON, though its Content-Type says it is")
	}
	return true, nil
}
