package e2e

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/octo-run/octo/connectors/nats/natstest"
)

// dockerfile is docs/deploy/Dockerfile as the test reads it: its stages, and the final stage's
// instructions by keyword.
type dockerfile struct {
	stages int
	last   map[string][]string // keyword → arguments, final stage only
}

func readDockerfile(t *testing.T) dockerfile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "deploy", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), "\\\n", " ")
	d := dockerfile{last: map[string][]string{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kw, rest, _ := strings.Cut(line, " ")
		kw = strings.ToUpper(kw)
		if kw == "FROM" {
			d.stages++
			d.last = map[string][]string{}
		}
		d.last[kw] = append(d.last[kw], strings.TrimSpace(rest))
	}
	return d
}

// execForm decodes a JSON exec form, ["a", "b"].
func execForm(t *testing.T, s string) []string {
	t.Helper()
	var out []string
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%q is not an exec form: %v", s, err)
	}
	return out
}

// flagValue is the value that follows name in args.
func flagValue(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// The image recipe builds a static binary in one stage, ships it on a second as a user that is
// not root, and checks its health with octo itself on the admin port the command opens.
func TestTheImageRecipeIsStaticNonRootAndProbesTheAdminPort(t *testing.T) {
	d := readDockerfile(t)
	whole, _ := os.ReadFile(filepath.Join(repoRoot(), "docs", "deploy", "Dockerfile"))
	if d.stages < 2 || !strings.Contains(string(whole), "CGO_ENABLED=0 go build") {
		t.Fatalf("want a multi-stage build of a static binary; %d stages", d.stages)
	}
	if u := d.last["USER"]; len(u) != 1 || strings.HasPrefix(u[0], "root") || strings.HasPrefix(u[0], "0") {
		t.Fatalf("the final stage runs as %q", u)
	}
	cmd := execForm(t, d.last["CMD"][0])
	entry := execForm(t, d.last["ENTRYPOINT"][0])
	if len(entry) != 1 || !strings.HasSuffix(entry[0], "/octo") || cmd[0] != "run" {
		t.Fatalf("ENTRYPOINT %q CMD %q: want the binary alone as the entry point, so that Kubernetes args replace the command", entry, cmd)
	}
	admin := flagValue(cmd, "--admin")
	_, adminPort, _ := strings.Cut(admin, ":")
	hc := d.last["HEALTHCHECK"]
	if len(hc) != 1 || !strings.Contains(hc[0], `"probe"`) || !strings.Contains(hc[0], "127.0.0.1:"+adminPort+"/healthz") {
		t.Fatalf("HEALTHCHECK %q does not probe /healthz on the admin port %s", hc, adminPort)
	}
	if flagValue(cmd, "--drain-delay") == "" {
		t.Fatalf("CMD %q has no --drain-delay", cmd)
	}
}

// k8s is the part of docs/deploy/kubernetes.yaml the test checks.
type k8s struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas int `yaml:"replicas"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				Grace      int `yaml:"terminationGracePeriodSeconds"`
				Containers []struct {
					Args  []string `yaml:"args"`
					Env   []struct{ Name, Value string }
					Ports []struct {
						Name          string `yaml:"name"`
						ContainerPort int    `yaml:"containerPort"`
					} `yaml:"ports"`
					Readiness probeSpec `yaml:"readinessProbe"`
					Liveness  probeSpec `yaml:"livenessProbe"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		Selector yaml.Node `yaml:"selector"` // a Service's labels; a Deployment's matchLabels
		Ports    yaml.Node `yaml:"ports"`    // a Service's
	} `yaml:"spec"`
}

type probeSpec struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
	Period   int `yaml:"periodSeconds"`
	Failures int `yaml:"failureThreshold"`
}

// The Kubernetes manifests run three replicas whose probes reach the admin listener's real
// endpoints, sized so that a pod leaves the endpoints within its drain delay and stops within
// its grace period; the Service selects the pods and is the host name they accept. Then the
// container's command, run as written with the manifest's environment, answers its probes and
// its clients, and drains on SIGTERM as the manifest expects.
func TestTheKubernetesManifestsProbeRealEndpoints(t *testing.T) {
	docs := readManifests(t, "kubernetes.yaml")
	checkDeployment(t, docs, "samples/mcp-router", nil, rollingCall, rollingWant)
}

// The cluster's manifests add NATS with JetStream: the octo pods' NATS_URL names its Service and
// port, which select the NATS pods, started with JetStream on their volume; the octo pods are
// checked and run as the router's are, the NATS server the test's.
func TestTheClusterManifestsRunOctoBesideNATS(t *testing.T) {
	docs := readManifests(t, "kubernetes-cluster.yaml")
	var nats, natsService *k8s
	for _, d := range docs {
		switch {
		case d.Kind == "StatefulSet":
			nats = d
		case d.Kind == "Service" && d.Metadata.Name == "nats":
			natsService = d
		}
	}
	if nats == nil || natsService == nil {
		t.Fatal("want a StatefulSet and a Service named nats")
	}
	var selects map[string]string
	var ports []struct{ Port, TargetPort string }
	_ = natsService.Spec.Selector.Decode(&selects)
	_ = natsService.Spec.Ports.Decode(&ports)
	server := nats.Spec.Template.Spec.Containers[0]
	if selects["app"] == "" || selects["app"] != nats.Spec.Template.Metadata.Labels["app"] || !slices.Contains(server.Args, "-js") ||
		len(ports) != 1 || ports[0].Port != "4222" {
		t.Fatalf("the nats Service (%v, ports %v) must select the NATS pods, started with -js (%q)", selects, ports, server.Args)
	}
	ns := natstest.Start(t, natstest.Options{})
	checkDeployment(t, docs, "samples/mcp-cluster", func(env map[string]string) {
		if env["NATS_URL"] != "nats://"+natsService.Metadata.Name+":"+ports[0].Port {
			t.Fatalf("NATS_URL %q does not name the nats Service", env["NATS_URL"])
		}
		env["NATS_URL"] = ns.ClientURL()
	}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `"name":"slow_report"`)
}

// readManifests decodes the documents of docs/deploy/name.
func readManifests(t *testing.T, name string) []*k8s {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "deploy", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	var out []*k8s
	for {
		var doc k8s
		if err := dec.Decode(&doc); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatal(err)
			}
			return out
		}
		out = append(out, &doc)
	}
}

// checkDeployment checks the Deployment of docs and the Service that selects its pods, then
// runs its container's command on config with the manifest's environment (as setEnv changes it)
// and sends request, whose answer holds want.
func checkDeployment(t *testing.T, docs []*k8s, config string, setEnv func(map[string]string), request, want string) {
	t.Helper()
	var deploy, service *k8s
	for _, d := range docs {
		if d.Kind == "Deployment" {
			deploy = d
		}
	}
	if deploy == nil {
		t.Fatal("want a Deployment")
	}
	for _, d := range docs {
		var sel map[string]string
		if d.Kind == "Service" && d.Spec.Selector.Decode(&sel) == nil && sel["app"] == deploy.Spec.Template.Metadata.Labels["app"] {
			service = d
		}
	}
	if service == nil {
		t.Fatal("want a Service that selects the Deployment's pods")
	}
	var selects map[string]string
	if err := service.Spec.Selector.Decode(&selects); err != nil {
		t.Fatal(err)
	}
	pod := deploy.Spec.Template.Spec
	if deploy.Spec.Replicas != 3 || len(pod.Containers) != 1 {
		t.Fatalf("replicas %d, containers %d", deploy.Spec.Replicas, len(pod.Containers))
	}
	c := pod.Containers[0]
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if setEnv != nil {
		setEnv(env)
	}
	_, adminPort, _ := strings.Cut(flagValue(c.Args, "--admin"), ":")
	drain, err1 := time.ParseDuration(flagValue(c.Args, "--drain-delay"))
	grace, err2 := time.ParseDuration(flagValue(c.Args, "--shutdown-timeout"))
	if err1 != nil || err2 != nil {
		t.Fatalf("args %q: --drain-delay and --shutdown-timeout must be durations", c.Args)
	}
	checks := []struct {
		what string
		ok   bool
	}{
		{"readiness probes /readyz on the admin port", c.Readiness.HTTPGet.Path == "/readyz" && strconv.Itoa(ports[c.Readiness.HTTPGet.Port]) == adminPort},
		{"liveness probes /healthz on the admin port", c.Liveness.HTTPGet.Path == "/healthz" && strconv.Itoa(ports[c.Liveness.HTTPGet.Port]) == adminPort},
		{"the pod leaves the endpoints within the drain delay", time.Duration(c.Readiness.Period*max(c.Readiness.Failures, 1))*time.Second < drain},
		{"the grace period covers the drain delay and the shutdown", time.Duration(pod.Grace)*time.Second > drain+grace},
		{"the service selects the pods", selects["app"] != "" && selects["app"] == deploy.Spec.Template.Metadata.Labels["app"]},
		{"the pods accept the service's name as a host", env["PUBLIC_HOST"] == service.Metadata.Name},
		{"the service port is the container's HTTP_PORT", strconv.Itoa(ports["http"]) == env["HTTP_PORT"]},
	}
	for _, ch := range checks {
		if !ch.ok {
			t.Errorf("%s: no (args %q, ports %v, env %v)", ch.what, c.Args, ports, env)
		}
	}
	if t.Failed() {
		return
	}

	// The command as the manifest writes it, on free ports, the image's config being the sample.
	port, admin := freePort(t), freePort(t)
	args := slices.Clone(c.Args)
	args[slices.Index(args, "--config")+1] = config
	args[slices.Index(args, "--admin")+1] = "127.0.0.1:" + strconv.Itoa(admin)
	args[slices.Index(args, "--drain-delay")+1] = "2s"
	var vars []string
	for k, v := range env {
		if k == "HTTP_PORT" {
			v = strconv.Itoa(port)
		}
		vars = append(vars, k+"="+v)
	}
	p := startOcto(t, vars, args...)
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	adminURL := "http://127.0.0.1:" + strconv.Itoa(admin)
	for _, path := range []string{c.Readiness.HTTPGet.Path, c.Liveness.HTTPGet.Path} {
		if a := do(t, http.MethodGet, adminURL+path, "", ""); a.status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, a.status, a.body)
		}
	}
	if out, err := exec.Command(octoBin, "probe", adminURL+c.Liveness.HTTPGet.Path).CombinedOutput(); err != nil {
		t.Fatalf("octo probe: %v %s", err, out)
	}
	call := func() (answer, bool) {
		req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(request))
		req.Host = service.Metadata.Name // as a client in the cluster names the service
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var sb strings.Builder
		_, _ = bufioCopy(&sb, resp)
		return answer{resp.StatusCode, resp.Header, sb.String()}, resp.Close // Close: the answer said Connection: close
	}
	if a, _ := call(); a.status != http.StatusOK || !strings.Contains(a.body, want) {
		t.Fatalf("a call naming the service: %d %s", a.status, a.body)
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	p.waitCount(t, "draining: serving on", 1)
	if a := do(t, http.MethodGet, adminURL+"/readyz", "", ""); a.status != http.StatusServiceUnavailable || !regexp.MustCompile(`"status":"stopping"`).MatchString(a.body) {
		t.Fatalf("/readyz while draining: %d %s", a.status, a.body)
	}
	if a, closed := call(); a.status != http.StatusOK || !closed {
		t.Fatalf("a call while draining: %d, connection closed after it: %v", a.status, closed)
	}
}
