package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
)

// `make release` for this machine's platform: the binary prints the version it was given, the
// commit it was built from and when, and SHA256SUMS holds its hash.
func TestMakeReleaseStampsTheVersionAndRevision(t *testing.T) {
	dir := t.TempDir()
	platform := goruntime.GOOS + "/" + goruntime.GOARCH
	make := exec.Command("make", "--no-print-directory", "release", "PLATFORMS="+platform, "RELEASE_DIR="+dir, "VERSION=v0.0.0-e2e")
	make.Dir = repoRoot()
	if out, err := make.CombinedOutput(); err != nil {
		t.Fatalf("make release: %v\n%s", err, out)
	}
	name := "octo_v0.0.0-e2e_" + goruntime.GOOS + "_" + goruntime.GOARCH
	if goruntime.GOOS == "windows" {
		name += ".exe"
	}
	bin := filepath.Join(dir, name)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("%s version: %v", name, err)
	}
	got := string(out)
	if !strings.HasPrefix(got, "octo v0.0.0-e2e (") || !strings.Contains(got, "built 20") || !strings.Contains(got, goruntime.Version()+" "+platform+")") {
		t.Errorf("octo version: %s", got)
	}
	rev := exec.Command("git", "rev-parse", "HEAD")
	rev.Dir = repoRoot()
	if head, err := rev.Output(); err == nil && !strings.Contains(got, "(revision "+strings.TrimSpace(string(head))+", ") {
		t.Errorf("octo version names no revision %s: %s", head, got)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil || string(sums) != hex.EncodeToString(sum[:])+"  "+name+"\n" {
		t.Errorf("SHA256SUMS: %q, %v", sums, err)
	}
}
