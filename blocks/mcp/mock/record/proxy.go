package record

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strings"
)

// maxBody bounds a message body the proxy reads whole to record it.
const maxBody = 64 << 20

// proxy passes a client's Streamable HTTP requests to the upstream server unchanged and its
// answers back as they come (JSON, or an event stream event by event), recording each
// exchange.
type proxy struct {
	upstream string
	client   *http.Client
	rec      *Recording
}

// hopHeaders are a connection's own headers, which a proxy does not pass on.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Host", "Content-Length"}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "the request body could not be read whole (at most 64 MiB)", http.StatusRequestEntityTooLarge)
		return
	}
	ex := p.rec.NewExchange()
	if r.Method == http.MethodPost {
		ex.Sent(body)
	}
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.upstream, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	req.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		http.Error(w, "octo record: the upstream server did not answer: "+err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		if !contains(hopHeaders, k) {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if media == "text/event-stream" {
		relayEvents(r.Context(), w, resp.Body, ex)
		return
	}
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	_, _ = w.Write(answer)
	if media == "application/json" {
		ex.Answered(answer)
	}
}

// relayEvents copies an event stream line by line, flushing each event, and records each
// event's data as it passes.
func relayEvents(ctx context.Context, w http.ResponseWriter, body io.Reader, ex *Exchange) {
	flusher, _ := w.(http.Flusher)
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	var data bytes.Buffer
	for sc.Scan() && ctx.Err() == nil {
		line := sc.Text()
		_, _ = io.WriteString(w, line+"\n")
		switch {
		case line == "":
			if flusher != nil {
				flusher.Flush()
			}
			if data.Len() > 0 {
				ex.Answered(data.Bytes())
				data.Reset()
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
