package client

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/octo-run/octo/mcp"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// listener is a conn that can open a stream for what the server sends on its own (list
// changes, log lines, its requests), outside any request: the Streamable HTTP GET stream.
type listener interface {
	listen()
}

// relistenDelay is how long the GET stream waits before it is opened again after it ended.
const relistenDelay = time.Second

// listen keeps the session's GET stream open until close, handing each message to recv; each
// opening carries the session of the moment, so a renewed session is listened to as well. A
// server without the stream (405) is left alone.
func (s *streamable) listen() {
	ctx, cancel := context.WithCancel(context.Background())
	s.mu.Lock()
	s.stopListening = cancel
	s.listening = make(chan struct{})
	done := s.listening
	s.mu.Unlock()
	go func() {
		defer close(done)
		for {
			if err := s.stream(ctx); errors.Is(err, errNoStream) || ctx.Err() != nil {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(relistenDelay):
			}
		}
	}()
}

var errNoStream = errors.New("the server offers no GET stream")

// stream reads one opening of the GET stream until it ends.
func (s *streamable) stream(ctx context.Context) error {
	req, _, err := s.newRequest(ctx, http.MethodGet, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", mcp.ContentTypeSSE)
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusMethodNotAllowed {
		return errNoStream
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != http.StatusOK || ct != mcp.ContentTypeSSE {
		return httpError(resp, excerptBytes)
	}
	er := newEventReader(resp.Body, s.max)
	for {
		ev, err := er.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if ev.name == "" || ev.name == "message" {
			_, _ = deliver(ev.data, jsonrpc.ID{}, s.recv)
		}
	}
}
