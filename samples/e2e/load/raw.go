package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"time"
)

// rawRequest is the part of a JSON-RPC tools/call the baseline reads.
type rawRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  struct {
		Name      string `json:"name"`
		Arguments struct {
			City *string `json:"city"`
		} `json:"arguments"`
	} `json:"params"`
}

type forecast struct {
	City    string `json:"city"`
	Summary string `json:"summary"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type rawResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  struct {
		Content           []textContent `json:"content"`
		StructuredContent forecast      `json:"structuredContent"`
	} `json:"result"`
}

// serveRaw is the least a hand-written server must do for the same answer:
// decode the request, check it is a call of forecast with a city, build the
// result (the text block is the structured result as JSON) and encode it.
func serveRaw(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	var req rawRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil {
		http.Error(w, "bad JSON", http.StatusBadRequest)
		return
	}
	city := req.Params.Arguments.City
	if req.JSONRPC != "2.0" || req.Method != "tools/call" || req.Params.Name != "forecast" || city == nil {
		http.Error(w, "not a forecast call", http.StatusBadRequest)
		return
	}
	out := forecast{City: *city, Summary: "Sunny, 24C"}
	text, err := json.Marshal(out)
	if err != nil {
		http.Error(w, "encoding", http.StatusInternalServerError)
		return
	}
	resp := rawResponse{JSONRPC: "2.0", ID: req.ID}
	resp.Result.Content = []textContent{{Type: "text", Text: string(text)}}
	resp.Result.StructuredContent = out
	b, err := json.Marshal(resp)
	if err != nil {
		http.Error(w, "encoding", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// rawServer is the baseline, run as a process of its own like octo (this program again, with
// -serve-raw), so both servers pay the same costs of being another process than the client:
// the kernel's wake-ups between processes, and a CPU time of their own to read. -raw-in-process
// keeps it in the harness, as the figures before 2026-12 were measured.
type rawServer struct {
	url  string
	proc *octoProc // nil when it runs in this process
	stop func()
}

// startRaw starts the baseline on a free loopback port.
func startRaw(ctx context.Context, o options) (*rawServer, error) {
	if o.rawInProcess {
		url, stop, err := serveRawHere()
		if err != nil {
			return nil, err
		}
		return &rawServer{url: url, stop: stop}, nil
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	p, url, err := startProcess(ctx, o, "raw", exec.Command(self, "-serve-raw"))
	if err != nil {
		return nil, err
	}
	return &rawServer{url: url, proc: p, stop: func() { _ = p.stop() }}, nil
}

// serveRawForever is -serve-raw: the baseline on a free loopback port, told on standard
// error as octo tells its own ("msg=listening … addr=http://127.0.0.1:PORT"), until killed.
func serveRawForever() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "msg=listening addr=http://%s\n", ln.Addr())
	return rawHTTPServer().Serve(ln)
}

// rawHTTPServer has the server timeouts octo's http connector uses by default.
func rawHTTPServer() *http.Server {
	return &http.Server{
		Handler:           http.HandlerFunc(serveRaw),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
}

// serveRawHere serves the baseline in this process on a loopback port.
func serveRawHere() (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := rawHTTPServer()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "load: raw server:", err)
		}
	}()
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(ctx) != nil {
			_ = srv.Close()
		}
		<-done
	}
	url = loopbackURL(ln.Addr().(*net.TCPAddr).Port)
	if err := checkOnce(&http.Client{Timeout: 2 * time.Second}, url); err != nil {
		stop()
		return "", nil, err
	}
	return url, stop, nil
}
