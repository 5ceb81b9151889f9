package e2e

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// steadyLoad is 4 clients, each looping one request until the test ends it, counting every
// request and every failure: a refused or broken connection, or an answer other than expected.
type steadyLoad struct {
	stop     chan struct{}
	once     sync.Once
	wg       sync.WaitGroup
	mu       sync.Mutex
	counted  *sync.Cond // broadcast at each request
	requests int64
	failures []string
}

func startLoad(t *testing.T, call func(*http.Client) error) *steadyLoad {
	t.Helper()
	l := &steadyLoad{stop: make(chan struct{})}
	l.counted = sync.NewCond(&l.mu)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}, Timeout: 10 * time.Second}
	for range 4 {
		l.wg.Go(func() {
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				err := call(client)
				l.mu.Lock()
				l.requests++
				if err != nil {
					l.failures = append(l.failures, err.Error())
				}
				l.counted.Broadcast()
				l.mu.Unlock()
			}
		})
	}
	t.Cleanup(func() { l.end(); client.CloseIdleConnections() })
	return l
}

// more waits until the clients have made n more requests.
func (l *steadyLoad) more(n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for target := l.requests + n; l.requests < target; {
		l.counted.Wait()
	}
}

// end stops the clients and returns what they counted.
func (l *steadyLoad) end() (requests int64, failures []string) {
	l.once.Do(func() { close(l.stop) })
	l.wg.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.requests, l.failures
}

// forecastCall is a tools/call of the router sample's forecast tool.
const forecastCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{"city":"Paris"}}}`

// forecast posts forecastCall to url and returns the summary the answer holds.
func forecast(client *http.Client, url string) (string, error) {
	resp, err := client.Post(url, "application/json", strings.NewReader(forecastCall))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	_, rest, ok := strings.Cut(string(body), `"structuredContent":{"city":"Paris","summary":"`)
	summary, _, ok2 := strings.Cut(rest, `"`)
	if resp.StatusCode != http.StatusOK || !ok || !ok2 {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, body)
	}
	return summary, nil
}

// reloadUnderLoad serves a copy of the router sample with args and, while 4 clients call its
// tool without pause, makes 10 edits, the fifth of them broken, each applied by apply. After
// each good edit the tool answers with the new summary; after the broken one, with the last
// good one. No request may fail.
func reloadUnderLoad(t *testing.T, apply func(p *proc, good int), args ...string) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(repoRoot(), "samples", "mcp-router"))); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "mcp-router.yaml")
	orig, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	p := startOcto(t, []string{"HTTP_PORT=" + strconv.Itoa(port)}, append([]string{"run", "--config", dir}, args...)...)
	url := fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
	load := startLoad(t, func(c *http.Client) error { _, err := forecast(c, url); return err })

	want, good := "Sunny, 24C", 0
	for i := 1; i <= 10; i++ {
		load.more(40) // every reload happens under load
		edit := strings.Replace(string(orig), "Sunny, 24C", fmt.Sprintf("Edit %d", i), 1)
		if i == 5 {
			edit = strings.Replace(string(orig), `"summary": "Sunny, 24C"}`, `"summary": }`, 1)
		} else {
			want, good = fmt.Sprintf("Edit %d", i), good+1
		}
		if err := os.WriteFile(file, []byte(edit), 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 5 {
			apply(p, -1)
			p.waitCount(t, "not reloaded: the running config keeps serving", 1)
			if !strings.Contains(p.Log(), file+":") {
				t.Fatalf("the broken edit was not reported at its line:\n%s", p.Log())
			}
		} else {
			apply(p, good)
			p.waitCount(t, "msg=reloaded", good)
		}
		if got, err := forecast(http.DefaultClient, url); err != nil || got != want {
			t.Fatalf("after edit %d the tool answers %q (%v), want %q", i, got, err, want)
		}
	}
	requests, failures := load.end()
	if len(failures) > 0 {
		t.Fatalf("%d of %d requests failed during the reloads, first: %s", len(failures), requests, failures[0])
	}
	t.Logf("%d requests, none failed, through 9 reloads and a broken edit", requests)
}

// TestWatchReloadsUnderSteadyLoadWithoutFailingARequest edits the config of `octo run
// --watch`: each edit is applied once it has settled.
func TestWatchReloadsUnderSteadyLoadWithoutFailingARequest(t *testing.T) {
	reloadUnderLoad(t, func(*proc, int) {}, "--watch")
}

// TestSIGHUPReloadsUnderSteadyLoadWithoutFailingARequest edits the config of `octo run` and
// sends SIGHUP after each edit.
func TestSIGHUPReloadsUnderSteadyLoadWithoutFailingARequest(t *testing.T) {
	reloadUnderLoad(t, func(p *proc, _ int) {
		if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
	})
}

// mockSession opens a Streamable HTTP session on the mock at url and returns a call of its
// get_weather tool on that session.
func mockSession(client *http.Client, url string) (func() error, error) {
	post := func(sid, body string) (*http.Response, string, error) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp, string(b), err
	}
	resp, body, err := post("", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"reload","version":"1"}}}`)
	if err != nil {
		return nil, err
	}
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		return nil, fmt.Errorf("initialize: %d %s", resp.StatusCode, body)
	}
	if _, _, err := post(sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return func() error {
		resp, body, err := post(sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"city":"Oslo"}}}`)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `\"city\": \"Oslo\"`) {
			return &answerError{fmt.Sprintf("status %d: %s", resp.StatusCode, body)}
		}
		return nil
	}, nil
}

// answerError is a request the server answered, wrongly.
type answerError struct{ msg string }

func (e *answerError) Error() string { return e.msg }

// TestAWorkspaceServerMovesToAnotherPortWithoutFailingARequest edits a served mock's port while
// 4 clients call its tool, each on a session of its own: every call on the old port is answered
// until the port closes, and by then the new port serves.
func TestAWorkspaceServerMovesToAnotherPortWithoutFailingARequest(t *testing.T) {
	dir, file, oldURL := copyWeatherMock(t)
	p := startOcto(t, nil, "serve", dir)
	newPort := freePort(t)
	newURL := fmt.Sprintf("http://127.0.0.1:%d/mcp", newPort)

	type outcome struct {
		answered    int
		wrong       error // an answer other than expected, before the port closed
		closed      error // the transport error that showed the old port closed
		newServedBy error // dialling the new port at that moment
	}
	outcomes := make(chan outcome, 4)
	started := make(chan struct{}, 4)
	for range 4 {
		go func() {
			var o outcome
			defer func() { outcomes <- o }()
			client := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
			defer client.CloseIdleConnections()
			call, err := mockSession(client, oldURL)
			started <- struct{}{}
			if err != nil {
				o.wrong = err
				return
			}
			for {
				err := call()
				var ae *answerError
				switch {
				case err == nil:
					o.answered++
					continue
				case errors.As(err, &ae):
					o.wrong = err
				default:
					o.closed = err
					conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", newPort), 5*time.Second)
					if err == nil {
						conn.Close()
					}
					o.newServedBy = err
				}
				return
			}
		}()
	}
	for range 4 {
		<-started
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, oldPort, _ := strings.Cut(strings.TrimSuffix(oldURL, "/mcp"), "127.0.0.1:")
	edit := strings.Replace(string(text), "port: "+oldPort, "port: "+strconv.Itoa(newPort), 1)
	if err := os.WriteFile(file, []byte(edit), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		o := <-outcomes
		if o.wrong != nil {
			t.Fatalf("client %d: a call on the old port failed before it closed: %v", i, o.wrong)
		}
		if o.newServedBy != nil {
			t.Fatalf("client %d: when the old port closed (%v), the new one did not take connections: %v", i, o.closed, o.newServedBy)
		}
		if o.answered == 0 {
			t.Fatalf("client %d made no call before the port moved", i)
		}
	}
	p.waitCount(t, "server restarted to apply the edit", 1)
	if _, err := mockSession(http.DefaultClient, newURL); err != nil {
		t.Fatalf("the new port does not serve MCP: %v", err)
	}
}

// TestSIGHUPAppliesAWorkspaceEditAtOnce sends SIGHUP to `octo serve` after an edit: the process
// goes on serving, with the edit applied.
func TestSIGHUPAppliesAWorkspaceEditAtOnce(t *testing.T) {
	dir, file, url := copyWeatherMock(t)
	p := startOcto(t, nil, "serve", dir)
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(text), "name: get_weather", "name: get_forecast", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	p.waitCount(t, "applying the files as they are now", 1)
	p.waitCount(t, "settings updated", 1)
	if got := strings.Join(listTools(t, url), ","); got != "get_forecast,slow_report" {
		t.Fatalf("tools %s", got)
	}
}
