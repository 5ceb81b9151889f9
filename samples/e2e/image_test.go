package e2e

import (
	"archive/tar"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// octo image writes, without Docker, an image docker load reads: the static binary and the
// config on an empty base, a user that is not root, a HEALTHCHECK that probes /healthz. There is
// no container runtime here, so the image's own binary and config are taken out of its layer
// and run as its command says; /healthz answers, and the HEALTHCHECK's command passes.
func TestOctoImageServesItsConfigAndAnswersHealthz(t *testing.T) {
	dir := t.TempDir()
	archive := filepath.Join(dir, "octo.tar")
	got := octoExits(t, 0, "image", "--config", "samples/mcp-router", "--out", archive, "--tag", "octo:e2e")
	if !strings.Contains(got, "wrote "+archive+": octo:e2e (sha256:") {
		t.Fatalf("octo image: %s", got)
	}
	tag, _ := name.NewTag("octo:e2e")
	img, err := tarball.ImageFromPath(archive, &tag)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cf.Config
	if cf.OS != "linux" || c.User != "65532:65532" || !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/octo"}) ||
		c.Healthcheck == nil || !slices.Equal(c.Healthcheck.Test, []string{"CMD", "/usr/local/bin/octo", "probe", "http://127.0.0.1:9090/healthz"}) {
		t.Fatalf("the image's config: %+v %+v", cf, c.Healthcheck)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers: %v %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	root := filepath.Join(dir, "rootfs")
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(root, filepath.FromSlash(h.Name))
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, os.FileMode(h.Mode)&0o777); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(root, "usr", "local", "bin", "octo")
	if _, err := os.Stat(filepath.Join(root, "etc", "octo", "mcp-router.yaml")); err != nil {
		t.Fatalf("the config is not in the image: %v", err)
	}
	// The image's command, with its ports on loopback and free.
	admin := "127.0.0.1:" + strconv.Itoa(freePort(t))
	args := slices.Clone(cf.Config.Cmd)
	for i, a := range args {
		switch a {
		case "/etc/octo":
			args[i] = filepath.Join(root, "etc", "octo")
		case "0.0.0.0:9090":
			args[i] = admin
		}
	}
	run := exec.Command(bin, args...)
	run.Env = append(os.Environ(), "HTTP_PORT="+strconv.Itoa(freePort(t)), "HTTP_HOST=127.0.0.1")
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = run.Process.Kill(); _ = run.Wait() }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get("http://" + admin + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the image's octo did not answer /healthz: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	probe := exec.Command(bin, "probe", "http://"+admin+"/healthz")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Fatalf("the HEALTHCHECK's command failed: %v\n%s", err, out)
	}
}
