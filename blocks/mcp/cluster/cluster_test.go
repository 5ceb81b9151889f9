package cluster_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	_ "github.com/octo-run/octo/blocks/all"
	_ "github.com/octo-run/octo/connectors/all"
	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime"
	"github.com/octo-run/octo/runtime/runtimetest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/nats-io/nats-server/v2/server.(*Server).startGoRoutine.func1"))
}

// replicaConfig is a router whose report tool runs as a task for wait, in the cluster at url.
func replicaConfig(url, wait string) string {
	return `service:
  name: reports
  cluster: { url: '` + url + `', prefix: test }
connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tools:
          - name: report
            description: A slow report on a city.
            task: optional
            inputSchema: '{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}'
            process:
              - { type: delay, settings: { duration: ` + wait + ` } }
              - { type: set-payload, settings: { value: '"report on " + body.city' } }
`
}

// replica starts one replica and returns its service and a 2026-07-28 client of it.
func replica(t *testing.T, url, wait string) (*runtime.Service, runtimetest.Modern) {
	t.Helper()
	svc, base := runtimetest.Serve(t, replicaConfig(url, wait), "api", nil)
	return svc, runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
}

func TestATaskIsTheSameOnEveryReplica(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	_, a := replica(t, ns.ClientURL(), "300ms")
	_, b := replica(t, ns.ClientURL(), "300ms")
	a.Header = http.Header{"Authorization": {"Bearer ada"}} // the owner, as text in the cluster
	b.Header = a.Header

	id := a.StartTask(t, "report", `{"city":"Lisbon"}`)
	t.Run("another replica answers for it while it works", func(t *testing.T) {
		if task, ok := b.Task(t, id); !ok || (task["status"] != "working" && task["status"] != "completed") {
			t.Fatalf("replica b: %+v %v", task, ok)
		}
	})
	t.Run("it completes, and reads the same from both", func(t *testing.T) {
		done := b.WaitTask(t, id, "completed")
		again, _ := a.Task(t, id)
		if !strings.Contains(runtimetest.JSON(t, done["result"]), "report on Lisbon") || runtimetest.JSON(t, again) != runtimetest.JSON(t, done) {
			t.Fatalf("b: %+v\na: %+v", done, again)
		}
	})
	t.Run("another requester sees no such task on any replica", func(t *testing.T) {
		other := b
		other.Header = http.Header{"Authorization": {"Bearer someone-else"}}
		if _, ok := other.Task(t, id); ok {
			t.Fatal("another requester read the task")
		}
	})
}

func TestACancelOnOneReplicaStopsTheWorkOnAnother(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	_, a := replica(t, ns.ClientURL(), "30s")
	_, b := replica(t, ns.ClientURL(), "30s")
	id := a.StartTask(t, "report", `{"city":"Oslo"}`)
	listen := a.Listen(t, id) // on replica a, while b cancels
	if r := b.Call(t, "tasks/cancel", `{"taskId":"`+id+`"}`); r.Error != nil {
		t.Fatalf("tasks/cancel: %+v", r.Error)
	}
	if task := a.WaitTask(t, id, "cancelled"); task["statusMessage"] != "Cancelled by the client" {
		t.Fatalf("%+v", task)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case n := <-listen:
			if n["status"] == "cancelled" {
				return // a listen stream on a replica that did neither hears of it
			}
		case <-deadline:
			t.Fatal("the listen stream never heard of the cancel")
		}
	}
}

func TestATaskWhoseReplicaStopsIsFinishedByAnother(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	svcA, a := replica(t, ns.ClientURL(), "1500ms")
	_, b := replica(t, ns.ClientURL(), "1500ms")
	var ids []string
	for range 6 { // a few, so that some of them run on a
		ids = append(ids, a.StartTask(t, "report", `{"city":"Porto"}`))
	}
	time.Sleep(300 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = svcA.Stop(ctx) // what it was working on goes back to the queue
	for _, id := range ids {
		if task := b.WaitTask(t, id, "completed"); !strings.Contains(runtimetest.JSON(t, task["result"]), "report on Porto") {
			t.Fatalf("%s: %+v", id, task)
		}
	}
}

func TestTheLimitsCountEveryReplicasTasks(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := strings.Replace(replicaConfig(ns.ClientURL(), "30s"), "        tools:", "        tasks: { maxTasksPerOwner: 2 }\n        tools:", 1)
	_, base := runtimetest.Serve(t, cfg, "api", nil)
	_, base2 := runtimetest.Serve(t, cfg, "api", nil)
	a := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
	b := runtimetest.Modern{URL: base2 + "/mcp", Caps: runtimetest.WithTasks}
	a.StartTask(t, "report", `{"city":"x"}`)
	b.StartTask(t, "report", `{"city":"y"}`)
	time.Sleep(100 * time.Millisecond) // a counts what its watch of the bucket has told it
	r := a.Call(t, "tools/call", `{"name":"report","arguments":{"city":"z"}}`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "you already run 2 tasks") {
		t.Fatalf("a third task of one requester across two replicas: %+v %+v", r.Result, r.Error)
	}
}

func TestALostTaskOfAnAtMostOnceToolFails(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := strings.Replace(replicaConfig(ns.ClientURL(), "30s"), "task: optional", "task: optional\n            atMostOnce: true", 1)
	svcA, base := runtimetest.Serve(t, cfg, "api", nil)
	a := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
	id := a.StartTask(t, "report", `{"city":"Rome"}`)
	time.Sleep(300 * time.Millisecond) // a alone takes it
	_, base2 := runtimetest.Serve(t, cfg, "api", nil)
	b := runtimetest.Modern{URL: base2 + "/mcp", Caps: runtimetest.WithTasks}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = svcA.Stop(ctx)
	task := b.WaitTask(t, id, "failed")
	if !strings.Contains(runtimetest.JSON(t, task["error"]), `tool \"report\" runs at most once (atMostOnce)`) {
		t.Fatalf("%+v", task)
	}
}

func TestAtMostOnceIsForTasks(t *testing.T) {
	cfg := strings.Replace(replicaConfig("nats://127.0.0.1:1", "1s"), "task: optional", "atMostOnce: true", 1)
	_, err := runtimetest.BuildConfig(t, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), `atMostOnce is about tasks, and tool "report" never runs as one`) {
		t.Fatalf("%v", err)
	}
}

// A mock server's tasks are the cluster's too: one created on a replica completes and reads the
// same on another.
func TestAMockServersTasksAreTheClusters(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := mockConfig(ns.ClientURL(), "mocks", `
            - name: report
              task: optional
              steps: [ { sleep: 300ms } ]
              result: "report on {{args.city}}"
`)
	_, base := runtimetest.Serve(t, cfg, "api", nil)
	_, base2 := runtimetest.Serve(t, cfg, "api", nil)
	a := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
	b := runtimetest.Modern{URL: base2 + "/mcp", Caps: runtimetest.WithTasks}
	id := a.StartTask(t, "report", `{"city":"Quito"}`)
	done := b.WaitTask(t, id, "completed")
	if again, _ := a.Task(t, id); !strings.Contains(runtimetest.JSON(t, done["result"]), "report on Quito") || runtimetest.JSON(t, again) != runtimetest.JSON(t, done) {
		t.Fatalf("b: %+v\na: %+v", done, again)
	}
}

func TestAFinishedTaskMakesRoomAcrossReplicas(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := strings.Replace(replicaConfig(ns.ClientURL(), "10ms"), "        tools:", "        tasks: { maxTasksPerOwner: 2 }\n        tools:", 1)
	_, base := runtimetest.Serve(t, cfg, "api", nil)
	_, base2 := runtimetest.Serve(t, cfg, "api", nil)
	a := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
	b := runtimetest.Modern{URL: base2 + "/mcp", Caps: runtimetest.WithTasks}
	first := a.StartTask(t, "report", `{"city":"x"}`)
	second := b.StartTask(t, "report", `{"city":"y"}`)
	a.WaitTask(t, first, "completed")
	b.WaitTask(t, second, "completed")
	time.Sleep(100 * time.Millisecond)
	b.StartTask(t, "report", `{"city":"z"}`) // the oldest finished one, first, makes room
	if _, ok := a.Task(t, first); ok {
		t.Fatal("the oldest finished task was kept past the limit")
	}
	if _, ok := a.Task(t, second); !ok {
		t.Fatal("a newer finished task was dropped")
	}
}

// What the cluster cannot hold fails the task with a message that says so, never leaves it
// working: a result over NATS's largest message, and arguments too large to queue.
func TestATaskTooLargeForTheClusterFails(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := strings.Replace(replicaConfig(ns.ClientURL(), "1ms"), `'"report on " + body.city'`, `'body.city + body.city'`, 1)
	cfg = strings.Replace(cfg, "        tools:", "        tasks: { maxResultBytes: 4000000 }\n        tools:", 1)
	_, base := runtimetest.Serve(t, cfg, "api", nil)
	a := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
	t.Run("a result", func(t *testing.T) {
		task := a.WaitTask(t, a.StartTask(t, "report", `{"city":"`+strings.Repeat("x", 600<<10)+`"}`), "completed", "failed")
		if task["status"] != "failed" || !strings.Contains(runtimetest.JSON(t, task["error"]), "too large for the cluster") {
			t.Fatalf("%.300s", runtimetest.JSON(t, task))
		}
	})
	t.Run("arguments", func(t *testing.T) {
		r := a.Call(t, "tools/call", `{"name":"report","arguments":{"city":"`+strings.Repeat("y", 2<<20)+`"}}`)
		id, _ := r.Result["taskId"].(string)
		if r.Error != nil {
			if !strings.Contains(r.Error.Message, "too large for the cluster") {
				t.Fatalf("%+v", r.Error)
			}
			return
		}
		task := a.WaitTask(t, id, "completed", "failed")
		if task["status"] != "failed" || !strings.Contains(runtimetest.JSON(t, task["error"]), "too large for the cluster") {
			t.Fatalf("%.300s", runtimetest.JSON(t, task))
		}
	})
}

// A NATS server that stops and starts again (its streams on disk) loses no task: the replicas
// reconnect, a task made before reads the same after, and new tasks run and are heard.
func TestTasksLiveThroughANATSRestart(t *testing.T) {
	dir := t.TempDir()
	ns := natstest.Start(t, natstest.Options{StoreDir: dir})
	port := ns.Addr().(*net.TCPAddr).Port
	_, a := replica(t, ns.ClientURL(), "200ms")
	_, b := replica(t, ns.ClientURL(), "200ms")
	before := a.WaitTask(t, a.StartTask(t, "report", `{"city":"Lima"}`), "completed")

	ns.Shutdown()
	ns.WaitForShutdown()
	natstest.Start(t, natstest.Options{StoreDir: dir, Port: port})

	var id string
	for deadline := time.Now().Add(15 * time.Second); id == ""; time.Sleep(100 * time.Millisecond) {
		r := a.Call(t, "tools/call", `{"name":"report","arguments":{"city":"Cusco"}}`)
		id, _ = r.Result["taskId"].(string)
		if id == "" && time.Now().After(deadline) {
			t.Fatalf("no task after the restart: %+v", r.Error)
		}
	}
	listen := b.Listen(t, id)
	if done := b.WaitTask(t, id, "completed"); !strings.Contains(runtimetest.JSON(t, done["result"]), "report on Cusco") {
		t.Fatalf("%+v", done)
	}
	if again, _ := b.Task(t, before["taskId"].(string)); runtimetest.JSON(t, again) != runtimetest.JSON(t, before) {
		t.Fatalf("before the restart: %+v\nafter: %+v", before, again)
	}
	for deadline := time.After(5 * time.Second); ; {
		select {
		case n := <-listen:
			if n["status"] == "completed" {
				return
			}
		case <-deadline:
			t.Fatal("the listen stream did not hear the task complete after the restart")
		}
	}
}

// A mock tool marked atMostOnce fails its lost task as a router's does.
func TestALostTaskOfAnAtMostOnceMockToolFails(t *testing.T) {
	ns := natstest.Start(t, natstest.Options{})
	cfg := mockConfig(ns.ClientURL(), "once", `
            - { name: pay, task: optional, atMostOnce: true, steps: [ { sleep: 30s } ], result: paid }
`)
	svcA, base := runtimetest.Serve(t, cfg, "api", nil)
	id := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}.StartTask(t, "pay", `{}`)
	time.Sleep(300 * time.Millisecond) // a alone takes it
	_, base2 := runtimetest.Serve(t, cfg, "api", nil)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = svcA.Stop(ctx)
	task := runtimetest.Modern{URL: base2 + "/mcp", Caps: runtimetest.WithTasks}.WaitTask(t, id, "failed")
	if !strings.Contains(runtimetest.JSON(t, task["error"]), `tool \"pay\" runs at most once (atMostOnce)`) {
		t.Fatalf("%+v", task)
	}
}
