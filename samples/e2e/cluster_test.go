package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// clusterReplica is one octo process of samples/mcp-cluster (config in dir) and its client.
type clusterReplica struct {
	p      *proc
	client runtimetest.Modern
}

// startCluster runs n replicas of the config in dir on the NATS server at url.
func startCluster(t *testing.T, dir, url string, n int) []clusterReplica {
	t.Helper()
	ready := func(line string) bool { return strings.Contains(line, "MCP server ready") }
	out := make([]clusterReplica, n)
	for i := range out {
		port := strconv.Itoa(freePort(t))
		out[i] = clusterReplica{
			p:      startOctoUntil(t, []string{"NATS_URL=" + url, "HTTP_PORT=" + port}, ready, "run", "--config", dir),
			client: runtimetest.Modern{URL: "http://127.0.0.1:" + port + "/mcp", Caps: runtimetest.WithTasks},
		}
	}
	return out
}

// clusterSample is samples/mcp-cluster copied to a folder, with tasks taken over after takeover.
func clusterSample(t *testing.T, takeover string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "samples", "mcp-cluster", "mcp-cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(b), "        tools:\n", "        tasks: { takeoverAfter: "+takeover+" }\n        tools:\n", 1)
	if text == string(b) {
		t.Fatal("the sample has no tools: line to set takeoverAfter before")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mcp-cluster.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestEveryTaskCompletesThoughAReplicaIsKilled runs three replicas of samples/mcp-cluster,
// creates 200 tasks round-robin, SIGKILLs one replica while they work, and checks that every
// task completes and reads the same from each surviving replica; a listen stream on one replica
// hears of tasks created on another. It reports how many branches ran twice.
func TestEveryTaskCompletesThoughAReplicaIsKilled(t *testing.T) {
	const total = 200
	ns := natstest.Start(t, natstest.Options{})
	replicas := startCluster(t, clusterSample(t, "2s"), ns.ClientURL(), 3)
	// Four requesters, since one may hold 100 tasks (maxTasksPerOwner) across the cluster.
	as := func(r clusterReplica, i int) runtimetest.Modern {
		c := r.client
		c.Header = http.Header{"Authorization": {fmt.Sprintf("Bearer requester-%d", i%4)}}
		return c
	}
	ids := make([]string, total)
	for i := range ids {
		ids[i] = as(replicas[i%3], i).StartTask(t, "slow_report", fmt.Sprintf(`{"city":"c%d"}`, i))
	}
	// A stream on replica 2 for requester 0's tasks created on replicas 0 and 1.
	listen := as(replicas[2], 0).Listen(t, ids[0], ids[4], ids[12], ids[16])
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if strings.Contains(replicas[0].p.Log(), "writing the report") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("replica 0 took no task's work")
		}
	}
	_ = replicas[0].p.cmd.Process.Signal(syscall.SIGKILL) // mid-way: its reports are being written
	<-replicas[0].p.done
	alive := replicas[1:]
	for i, id := range ids {
		done := as(alive[i%2], i).WaitTask(t, id, "completed", "failed", "cancelled")
		want := fmt.Sprintf("Report on c%d: ", i)
		if done["status"] != "completed" || !strings.Contains(runtimetest.JSON(t, done["result"]), want) {
			t.Fatalf("task %d: %+v", i, done)
		}
		other, _ := as(alive[(i+1)%2], i).Task(t, id)
		if a, b := runtimetest.JSON(t, done), runtimetest.JSON(t, other); a != b {
			t.Fatalf("task %d reads differently on the two replicas:\n%s\n%s", i, a, b)
		}
	}
	heard := map[string]bool{}
	for deadline := time.After(10 * time.Second); len(heard) < 4; {
		select {
		case n := <-listen:
			if n["status"] == "completed" {
				heard[n["taskId"].(string)] = true
			}
		case <-deadline:
			t.Fatalf("the listen stream on replica 2 heard %d of 4 tasks complete", len(heard))
		}
	}
	runs, again := 0, 0
	for i := range ids {
		n := 0
		for _, r := range replicas {
			n += strings.Count(r.p.Log(), fmt.Sprintf("writing the report on c%d\"", i))
		}
		if n == 0 {
			t.Fatalf("task %d completed, yet no replica logged its work", i)
		}
		runs += n
		if n > 1 {
			again++
		}
	}
	killed := strings.Count(replicas[0].p.Log(), "writing the report on")
	t.Logf("%d tasks, %d branch runs: replica 0 began %d before it was killed, %d ran again elsewhere", total, runs, killed, again)
	if again == 0 {
		t.Fatal("no task ran again, so the killed replica's were never taken over")
	}
}

// The README's cluster section: the NATS server it starts is the one octo's tests run, its
// replicas are the sample on 8080 and 8081, and a task started on one reads as printed from the
// other.
func TestReadmeClusterTranscriptIsWhatTwoReplicasAnswer(t *testing.T) {
	section := docSection(t, "Several replicas, one MCP server")
	mod, err := os.ReadFile(filepath.Join(repoRoot(), "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`github.com/nats-io/nats-server/v2 (v\S+)`).FindSubmatch(mod)
	for _, want := range []string{
		"go run github.com/nats-io/nats-server/v2@" + string(version[1]) + " -js &",
		"HTTP_PORT=8080 bin/octo run --config samples/mcp-cluster &",
		"HTTP_PORT=8081 bin/octo run --config samples/mcp-cluster &",
	} {
		if !strings.Contains(section, "\n"+want) {
			t.Fatalf("the README's cluster section does not start %q", want)
		}
	}
	ns := natstest.Start(t, natstest.Options{})
	replicas := startCluster(t, filepath.Join(repoRoot(), "samples", "mcp-cluster"), ns.ClientURL(), 2)
	base := func(r clusterReplica) string { return strings.TrimSuffix(r.client.URL, "/mcp") }
	checkTaskTranscript(t, section, map[string]string{"8080": base(replicas[0]), "8081": base(replicas[1])})
}

// A workspace's cluster setting is every saved server's: two octo serve processes of one
// workspace answer for each other's tasks.
func TestAWorkspaceServedTwiceSharesItsTasks(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "servers"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"workspace.yaml": "cluster: { url: '" + ns.ClientURL() + "', prefix: mocks }\n",
		"servers/reports.yaml": `name: reports
port: 3999
mcp:
  tools:
    - name: report
      task: optional
      steps: [ { sleep: 500ms } ]
      result: "report on {{args.city}}"
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var clients []runtimetest.Modern
	for range 2 {
		port := strconv.Itoa(freePort(t))
		startOctoUntil(t, nil, func(line string) bool { return strings.Contains(line, "serving") }, "serve", dir, "reports", "--port", port)
		clients = append(clients, runtimetest.Modern{URL: "http://127.0.0.1:" + port + "/mcp", Caps: runtimetest.WithTasks})
	}
	id := clients[0].StartTask(t, "report", `{"city":"Nairobi"}`)
	if done := clients[1].WaitTask(t, id, "completed"); !strings.Contains(runtimetest.JSON(t, done["result"]), "report on Nairobi") {
		t.Fatalf("%+v", done)
	}
}

// A cluster octo cannot use stops the start with a problem at service.cluster.url, naming the
// variable that set it and what to do: nothing listening there, or a NATS server without
// JetStream.
func TestAClusterThatCannotBeUsedIsToldAtItsSetting(t *testing.T) {
	core := natstest.Start(t, natstest.Options{NoJetStream: true})
	for _, c := range []struct{ name, url, want string }{
		{"nothing listens", "nats://127.0.0.1:" + strconv.Itoa(freePort(t)), "no servers available for connection: start a NATS server with JetStream there (nats-server -js), or point url at one (NATS_URL sets it)"},
		{"no JetStream", core.ClientURL(), "runs without JetStream; start it with -js (NATS_URL sets it)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out := runOctoEnv(t, []string{"NATS_URL=" + c.url, "HTTP_PORT=" + strconv.Itoa(freePort(t))}, "run", "--config", "samples/mcp-cluster")
			i := strings.Index(out, "samples/mcp-cluster/mcp-cluster.yaml:9:10: service.cluster.url: ")
			if code != 1 || i < 0 || !strings.Contains(out[i:], c.want) {
				t.Fatalf("exit %d:\n%s", code, out)
			}
		})
	}
}
