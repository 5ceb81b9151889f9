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
	ex := p.rec.NewExchange()
	_, resp, ok := forward(w, r, p.client, p.upstream, func(body []byte) {
		if r.Method == http.MethodPost {
			ex.Sent(body)
		}
	})
	if !ok {
		return
	}
	defer resp.Body.Close()
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

// forward reads r's body (sent hears it first), sends the request on to target with r's headers
// but a connection's own, and writes the answer's status and headers to w; the caller copies the
// body and closes it. On failure it has answered w itself.
func forward(w http.ResponseWriter, r *http.Request, client *http.Client, target string, sent func([]byte)) ([]byte, *http.Response, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		http.Error(w, "the request body could not be read whole (at most 64 MiB)", http.StatusRequestEntityTooLarge)
		return nil, nil, false
	}
	sent(body)
	req, err := http.NewRequestWithContext(r.Context(), r.Method, target, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return nil, nil, false
	}
	req.Header = r.Header.Clone()
	for _, h := range hopHeaders {
		req.Header.Del(h)
	}
	resp, err := client.Do(req)
	if err != nil {
		http.Error(w, "octo record: the upstream did not answer: "+err.Error(), http.StatusBadGateway)
		return nil, nil, false
	}
	for k, v := range resp.Header {
		if !contains(hopHeaders, k) {
			w.Header()[k] = v
		}
	}
	w.WriteHeader(resp.StatusCode)
	return body, resp, true
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
