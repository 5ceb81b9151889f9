package e2e

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The HTTP mock guide's transcripts are what octo prints and what the starter answers: its
// `bin/octo new` runs as shown (the port it picked put in place of 3004 when 3004 is taken
// here), `octo serve` serves the result, and each `$ curl` line is sent as curl would send it
// and answered as the guide shows.
func TestTheHTTPMockGuideTranscriptsAreWhatOctoDoes(t *testing.T) {
	guide := readGuide(t, "http-mocks.md")
	blocks := consoleBlocks(guide)
	if len(blocks) != 2 {
		t.Fatalf("the guide has %d console blocks, want 2", len(blocks))
	}
	dir := t.TempDir()
	line, want, _ := strings.Cut(strings.TrimPrefix(blocks[0], "$ bin/octo "), "\n")
	cmd := exec.Command(octoBin, shellWords(t, line)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("octo %s: %v\n%s", line, err, out)
	}
	port := regexp.MustCompile(`\(port (\d+)\)`).FindStringSubmatch(string(out))
	if port == nil {
		t.Fatalf("octo new named no port:\n%s", out)
	}
	if got := strings.ReplaceAll(string(out), port[1], "3004"); got != want {
		t.Errorf("octo %s printed\n%s\nthe guide shows\n%s", line, got, want)
	}

	serve := exec.Command(octoBin, "serve", "mocks")
	serve.Dir = dir
	serve.Stdout, serve.Stderr = io.Discard, io.Discard
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	base := "http://127.0.0.1:" + port[1]
	waitFor(t, "octo serve to answer", func() bool {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	steps := strings.Split(blocks[1], "$ curl ")[1:]
	if len(steps) < 5 {
		t.Fatalf("the guide shows %d curl lines, want at least 5", len(steps))
	}
	for _, step := range steps {
		line, want, _ := strings.Cut(step, "\n")
		if got := curl(t, port[1], shellWords(t, line)); got+"\n" != want {
			t.Errorf("curl %s answered\n%s\nthe guide shows\n%s", line, got, want)
		}
	}
}

// The guide's saved file and flow config are valid as written.
func TestTheHTTPMockGuideFilesValidate(t *testing.T) {
	guide := readGuide(t, "http-mocks.md")
	yamls := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(guide, -1)
	if len(yamls) != 2 {
		t.Fatalf("the guide has %d yaml blocks, want 2", len(yamls))
	}
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "servers", "Billing API.yaml"), yamls[0][1])
	flow := t.TempDir()
	writeFile(t, filepath.Join(flow, "flow.yaml"), yamls[1][1])
	for _, args := range [][]string{{"validate", ws}, {"validate", "--config", flow}} {
		if out, err := exec.Command(octoBin, args...).CombinedOutput(); err != nil {
			t.Errorf("octo %v: %v\n%s", args, err, out)
		}
	}
}

func readGuide(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "guides", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// consoleBlocks are the texts of a document's ```console blocks.
func consoleBlocks(doc string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?s)```console\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// shellWords splits a command line as a POSIX shell would for the quoting the guides use:
// words, and '…' or "…" quoted parts.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case ' ':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case '\'', '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				t.Fatalf("unclosed %c in %s", c, line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// curl sends what a `curl -s [-X M] [-H 'k: v'] [-d body] URL` line sends, the guide's
// localhost:3004 being the mock's port, and returns the body.
func curl(t *testing.T, port string, args []string) string {
	t.Helper()
	method, body, url := "", "", ""
	header := http.Header{}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-s":
		case "-X":
			i++
			method = args[i]
		case "-H":
			i++
			k, v, _ := strings.Cut(args[i], ": ")
			header.Set(k, v)
		case "-d":
			i++
			body = args[i]
		default:
			url = args[i]
		}
	}
	if method == "" {
		method = http.MethodGet
		if body != "" {
			method = http.MethodPost
		}
	}
	url = "http://" + strings.Replace(url, "localhost:3004", "127.0.0.1:"+port, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
