// Command attacker is the other local user of the hostile-local-user tests (samples/e2e): the
// tests, run as root, start it as uid 65534 (syscall.Credential) to do what another user's
// process on a shared machine could do to the owner's octo, and read what it printed. It is
// built by the tests into a folder that user may enter; nothing else runs it.
//
//	attacker get URL [HEADER: VALUE]...   GET, print "status N" then the body
//	attacker post URL JSON                POST JSON, print "status N" then the body
//	attacker read PATH                    print "ok N" (bytes read) or "err MESSAGE"
//	attacker symlink TARGET LINK          plant LINK pointing at TARGET: "ok" or "err MESSAGE"
//	attacker mkdir PATH                   make a folder anybody may write in: "ok" or "err MESSAGE"
//	attacker hold ADDR N DURATION         keep N silent connections open to ADDR for DURATION,
//	                                      dialling again each one the other side closes; print
//	                                      "ready" once N are open, "dials D" at the end
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: attacker get|post|read|symlink|hold ...")
		os.Exit(2)
	}
	args := os.Args[2:]
	var err error
	switch os.Args[1] {
	case "get":
		err = request("GET", args[0], "", args[1:])
	case "post":
		err = request("POST", args[0], args[1], nil)
	case "read":
		var data []byte
		if data, err = os.ReadFile(args[0]); err == nil {
			fmt.Printf("ok %d\n", len(data))
		}
	case "symlink":
		if err = os.Symlink(args[0], args[1]); err == nil {
			fmt.Println("ok")
		}
	case "mkdir":
		if err = os.Mkdir(args[0], 0o777); err == nil {
			if err = os.Chmod(args[0], 0o777); err == nil {
				fmt.Println("ok")
			}
		}
	case "hold":
		err = hold(args)
	default:
		err = fmt.Errorf("unknown verb %q", os.Args[1])
	}
	if err != nil {
		fmt.Printf("err %v\n", err)
	}
}

func request(method, url, body string, headers []string) error {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for _, h := range headers {
		if k, v, ok := strings.Cut(h, ": "); ok {
			req.Header.Set(k, v)
		}
	}
	client := &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	fmt.Printf("status %d\nset-cookie %s\n%s\n", resp.StatusCode, resp.Header.Get("Set-Cookie"), data)
	return nil
}

// hold keeps n connections to addr open and silent until the time is up.
func hold(args []string) error {
	if len(args) != 3 {
		return fmt.Errorf("hold ADDR N DURATION")
	}
	n, err := strconv.Atoi(args[1])
	if err != nil {
		return err
	}
	d, err := time.ParseDuration(args[2])
	if err != nil {
		return err
	}
	end := time.Now().Add(d)
	var dials atomic.Int64
	var opened, wg sync.WaitGroup
	opened.Add(n)
	for range n {
		wg.Go(func() {
			first := true
			for time.Now().Before(end) {
				conn, err := net.DialTimeout("tcp", args[0], time.Second)
				dials.Add(1)
				if first {
					opened.Done()
					first = false
				}
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				_ = conn.SetReadDeadline(end)
				_, _ = io.Copy(io.Discard, conn) // until the other side closes it, or the end
				conn.Close()
			}
		})
	}
	opened.Wait()
	fmt.Println("ready")
	wg.Wait()
	fmt.Printf("dials %d\n", dials.Load())
	return nil
}
