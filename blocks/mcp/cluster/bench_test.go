package cluster_test

import (
	"testing"

	"github.com/octo-run/octo/connectors/nats/natstest"
	"github.com/octo-run/octo/runtime/runtimetest"
)

// quickConfig is a router whose tool answers at once as a task; cluster is its service.cluster
// line, "" for none.
func quickConfig(cluster string) string {
	return `service:
  name: bench
` + cluster + `connectors: [ { name: api, type: http, settings: { port: 0 } } ]
flows:
  - name: mcp
    source: { connector: api, settings: { path: /mcp } }
    process:
      - type: mcp-router
        tasks: { maxTasks: 100000, maxTasksPerOwner: 100000 }
        tools:
          - name: quick
            task: optional
            process: [ { type: set-payload, settings: { value: '"done"' } } ]
`
}

// BenchmarkTaskRoundTrip is a task from the client's side: tools/call creates it, tasks/get is
// asked until it has completed; in this process's memory, and in a cluster on an in-process
// NATS server (the record written and watched, the work queued and taken).
func BenchmarkTaskRoundTrip(b *testing.B) {
	ns := natstest.Start(b, natstest.Options{})
	for _, c := range []struct{ name, cluster string }{
		{"memory", ""},
		{"cluster", "  cluster: { url: '" + ns.ClientURL() + "', prefix: bench }\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			_, base := runtimetest.Serve(b, quickConfig(c.cluster), "api", nil)
			client := runtimetest.Modern{URL: base + "/mcp", Caps: runtimetest.WithTasks}
			polls := 0
			for b.Loop() {
				id := client.StartTask(b, "quick", `{}`)
				for {
					polls++
					if task, _ := client.Task(b, id); task["status"] == "completed" {
						break
					}
				}
			}
			b.ReportMetric(float64(polls)/float64(b.N), "gets/op")
		})
	}
}
