package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Every config of the NATS and cluster guides builds: octo validate takes each ```yaml block as
// a config.
func TestTheNATSGuidesConfigsBuild(t *testing.T) {
	for _, guide := range []string{"nats.md", "cluster.md"} {
		t.Run(guide, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "guides", guide))
			if err != nil {
				t.Fatal(err)
			}
			blocks := strings.Split(string(b), "```yaml\n")[1:]
			if len(blocks) < 1 {
				t.Fatalf("the guide has no config")
			}
			for i, blk := range blocks {
				text, _, _ := strings.Cut(blk, "```")
				file := filepath.Join(t.TempDir(), "c.yaml")
				if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				if out, err := exec.Command(octoBin, "validate", file).CombinedOutput(); err != nil {
					t.Fatalf("config %d of the guide does not build: %v\n%s\n%s", i+1, err, out, text)
				}
			}
		})
	}
}
