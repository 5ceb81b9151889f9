package supervisor_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/octo-run/octo/runtime/config"
	"github.com/octo-run/octo/runtime/supervisor"
)

// A unit is started, replaced by a new build of its config while its port stays bound, then
// stopped.
func Example() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0") // find a free port for the example
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir, _ := os.MkdirTemp("", "octo-example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "flow.yaml")
	configure := func(answer string) *config.Config {
		_ = os.WriteFile(file, []byte(fmt.Sprintf(`connectors:
  - { name: api, type: http, settings: { port: %d } }
flows:
  - { name: hello, source: { connector: api, settings: { path: /hello } }, process: [ { type: set-payload, settings: { value: '%q' } } ] }
`, port, answer)), 0o644)
		cfg, err := config.Load(file, nil)
		if err != nil {
			panic(err)
		}
		return cfg
	}
	ask := func() {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/hello", port))
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		fmt.Println(string(body))
	}

	sup := supervisor.New(supervisor.Options{Logger: slog.New(slog.DiscardHandler), StopTimeout: 5 * time.Second})
	ctx := context.Background()
	if err := sup.Start(ctx, "hello", configure("first")); err != nil {
		fmt.Println(err)
		return
	}
	ask()
	if _, err := sup.Replace(ctx, "hello", configure("second")); err != nil {
		fmt.Println(err)
		return
	}
	ask()
	for _, u := range sup.Units() {
		fmt.Println(u.Name, "build", u.Builds)
	}
	if err := sup.Stop(ctx, "hello"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// "first"
	// "second"
	// hello build 2
}
