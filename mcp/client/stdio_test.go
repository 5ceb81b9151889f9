package client_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/mcp/client"
	"github.com/octo-run/octo/mcp/jsonrpc"
)

// fakeStdioEnv makes the test binary a scripted stdio server (fakeStdio)
// instead of running the tests: a real child process on real pipes.
const fakeStdioEnv = "MCPCLIENT_FAKE_STDIO"

// fakeStdio serves stdin/stdout as mode says:
//   - garbage: first a line that is not JSON and a line over 64 KiB, then it
//     serves; a tool call asks the client roots/list and answers with the
//     client's answer
//   - crash: serves initialize, then dies on a tool call, complaining on stderr
//   - stubborn: serves, but keeps running after its input ends
//   - deaf: as stubborn, and ignores SIGTERM too
//   - env: a tool call answers with what it sees of its environment
func fakeStdio(mode string) int {
	out := bufio.NewWriter(os.Stdout)
	write := func(b []byte) {
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	if mode == "deaf" {
		signal.Ignore(syscall.SIGTERM)
	}
	if mode == "garbage" {
		write([]byte("this is not JSON"))
		write(bytes.Repeat([]byte("x"), 64<<10+10))
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	var pendingCall jsonrpc.ID
	for in.Scan() {
		msgs, _, perr := jsonrpc.Decode(in.Bytes())
		if perr != nil {
			continue
		}
		m := msgs[0]
		switch {
		case m.Method == "initialize":
			write(jsonrpc.AppendResult(nil, m.ID, []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake-stdio","version":"1"}}`)))
		case m.Method == "ping":
			write(jsonrpc.AppendResult(nil, m.ID, nil))
		case m.Method == "tools/call" && mode == "env":
			path := "unset"
			if os.Getenv("PATH") != "" {
				path = "set"
			}
			text := fmt.Sprintf("PATH=%s GIVEN=%s MCPCLIENT_SECRET=%s", path, os.Getenv("GIVEN"), os.Getenv("MCPCLIENT_SECRET"))
			write(jsonrpc.AppendResult(nil, m.ID, []byte(`{"content":[{"type":"text","text":`+fmt.Sprintf("%q", text)+`}]}`)))
		case m.Method == "tools/call" && mode == "crash":
			fmt.Fprintln(os.Stderr, "boom: the database is gone")
			return 3
		case m.Method == "tools/call":
			pendingCall = m.ID
			write(jsonrpc.AppendRequest(nil, jsonrpc.StringID("r1"), "roots/list", nil))
		case m.Kind == jsonrpc.KindResponse && !pendingCall.IsZero():
			text := fmt.Sprintf("%q", fmt.Sprintf("%s %v", m.ID, m.Error))
			write(jsonrpc.AppendResult(nil, pendingCall, []byte(`{"content":[{"type":"text","text":`+text+`}]}`)))
		}
	}
	if mode == "stubborn" || mode == "deaf" {
		time.Sleep(time.Minute)
	}
	return 0
}

func stdioOptions(mode string) client.Options {
	return client.Options{Command: []string{os.Args[0]}, Env: []string{fakeStdioEnv + "=" + mode},
		MaxMessageBytes: 64 << 10}
}

func TestStdioSkipsGarbageAndAnswersServerRequests(t *testing.T) {
	c := dial(t, stdioOptions("garbage"))
	if c.InitializeResult().ServerInfo.Name != "fake-stdio" {
		t.Fatalf("%+v", c.InitializeResult())
	}
	res, err := c.CallTool(testCtx(t), "any", nil, client.CallOptions{})
	want := `"r1" json-rpc error -32601: Method not found: this client does not serve roots/list`
	if err != nil || res.Content[0].Text != want {
		t.Fatalf("%+v %v", res, err)
	}
}

func TestStdioProcessThatDiesFailsItsCallsWithItsStderr(t *testing.T) {
	c := dial(t, stdioOptions("crash"))
	_, err := c.CallTool(testCtx(t), "any", nil, client.CallOptions{})
	if !errors.Is(err, client.ErrClosed) || !strings.Contains(err.Error(), "exit status 3") ||
		!strings.Contains(err.Error(), "boom: the database is gone") {
		t.Fatalf("err = %v", err)
	}
	<-c.Done()
	if err := c.Ping(testCtx(t)); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("ping after the end: %v", err)
	}
}

func TestStdioCloseEndsAStubbornProcess(t *testing.T) {
	for _, mode := range []string{"stubborn", "deaf"} {
		t.Run(mode, func(t *testing.T) {
			c, err := client.Dial(testCtx(t), stdioOptions(mode))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if err := c.Close(context.Background()); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Fatalf("close took %s", took)
			}
		})
	}
}

func TestStdioCommandThatCannotStart(t *testing.T) {
	_, err := client.Dial(testCtx(t), client.Options{Command: []string{"/nonexistent/mcp-server"}})
	if err == nil || !strings.Contains(err.Error(), "starting /nonexistent/mcp-server") {
		t.Fatalf("err = %v", err)
	}
}

func TestAStdioServerGetsOnlyTheEnvironmentItNeeds(t *testing.T) {
	t.Setenv("MCPCLIENT_SECRET", "hunter2")
	o := stdioOptions("env")
	o.Env = append(o.Env, "GIVEN=yes")
	c := dial(t, o)
	res, err := c.CallTool(testCtx(t), "env", nil, client.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].Text; got != "PATH=set GIVEN=yes MCPCLIENT_SECRET=" {
		t.Fatalf("the server saw %q", got)
	}
}
