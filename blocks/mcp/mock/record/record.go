package record

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"time"

	"github.com/octo-run/octo/blocks/mcp/mock/workspace"
	"github.com/octo-run/octo/runtime/ports"
)

// Options say what to record and where to keep it.
type Options struct {
	Workspace string // the workspace folder the recording is saved into
	Name      string // the saved server's name: servers/<Name>.yaml
	Upstream  string // the real server's Streamable HTTP URL (or, with HTTP, the API's base URL); or
	Command   []string
	HTTP      bool // record an HTTP API into an HTTP mock rather than an MCP server
	Port      int  // the local port clients are pointed at (0: the next free from 3100)
	Force     bool // replace a saved server of that name
	// Ready hears where clients reach the recorder ("" over stdio) and the file it saves into.
	Ready func(url, file string)
	// Stdin and Stdout are the client's side of a stdio recording.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// saveEvery is how long a change waits before it is saved, so a burst is written once.
const saveEvery = 200 * time.Millisecond

// Record records until ctx ends (or, over stdio, the client's input or the server ends),
// saving as it goes and once more at the end.
func Record(ctx context.Context, o Options) error {
	if err := workspace.CheckName(o.Name); err != nil {
		return err
	}
	file := workspace.ServerFile(o.Workspace, o.Name)
	if _, err := os.Stat(file); err == nil && !o.Force {
		return fmt.Errorf("%s exists: pass --force to record over it", file)
	}
	if err := os.MkdirAll(o.Workspace, 0o755); err != nil {
		return err
	}
	s, err := newSaver(o.Workspace, o.Name, file)
	if err != nil {
		return err
	}
	stop := make(chan struct{})
	saved := make(chan error, 1)
	var runErr error
	switch {
	case o.HTTP:
		base, err := url.Parse(o.Upstream)
		if err != nil || base.Host == "" {
			return fmt.Errorf("--upstream %q: expected the API's base URL, http://host:port/path", o.Upstream)
		}
		api := newAPIRecording()
		go func() {
			saved <- s.follow(api.changed, func(name string, port int) ([]byte, error) { return s.w.apiFile(api, name, port) }, stop)
		}()
		runErr = listen(ctx, o, &apiProxy{base: base, client: noRedirects, rec: api}, file, "")
	default:
		rec := NewRecording()
		go func() {
			saved <- s.follow(rec.Changed(), func(name string, port int) ([]byte, error) { return s.w.file(rec, name, port) }, stop)
		}()
		if len(o.Command) > 0 {
			runErr = recordStdio(ctx, o, rec, file)
		} else {
			runErr = listen(ctx, o, &proxy{upstream: o.Upstream, client: &http.Client{}, rec: rec}, file, "/mcp")
		}
	}
	close(stop)
	if err := <-saved; err != nil {
		return err
	}
	return runErr
}

// noRedirects passes an API's redirects to the client as they are, to be recorded.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// listen serves h on 127.0.0.1 until ctx ends; clients are pointed at its path.
func listen(ctx context.Context, o Options, h http.Handler, file, path string) error {
	port := o.Port
	if port == 0 {
		port = ports.Free(3100, nil)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("listening on 127.0.0.1:%d: %w", port, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	if o.Ready != nil {
		o.Ready("http://"+ln.Addr().String()+path, file)
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(shut)
	return nil
}

// recordStdio starts the server's command and passes lines both ways until either side ends.
func recordStdio(ctx context.Context, o Options, rec *Recording, file string) error {
	cmd := exec.CommandContext(ctx, o.Command[0], o.Command[1:]...)
	cmd.Stderr = o.Stderr
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", o.Command[0], err)
	}
	if o.Ready != nil {
		o.Ready("", file)
	}
	ex := rec.NewExchange() // one session: a request's answer comes on a later line
	go func() {
		lines(o.Stdin, func(line []byte) bool {
			ex.Sent(line)
			_, err := toServer.Write(append(line, '\n'))
			return err == nil
		})
		_ = toServer.Close()
	}()
	lines(fromServer, func(line []byte) bool {
		ex.Answered(line)
		_, err := o.Stdout.Write(append(line, '\n'))
		return err == nil
	})
	err = cmd.Wait()
	var exit *exec.ExitError
	if ctx.Err() != nil || errors.As(err, &exit) && exit.ExitCode() == 0 {
		return nil
	}
	return err
}

// lines calls each with every line of r (without its end) until r ends or each says stop.
func lines(r io.Reader, each func([]byte) bool) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	for sc.Scan() {
		if !each(slices.Clone(sc.Bytes())) {
			return
		}
	}
}
