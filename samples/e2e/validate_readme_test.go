package e2e

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The README's "Find mistakes before you run" examples, checked by the built binary: each
// ```yaml block, saved as flow.yaml, makes `octo validate --config flow.yaml` print the ```text
// block after it, exactly.
func TestReadmeValidateExamplesPrintAsShown(t *testing.T) {
	section := docSection(t, "Find mistakes before you run")
	blocks := strings.Split(section, "```yaml\n")[1:]
	if len(blocks) < 2 {
		t.Fatalf("found %d yaml examples, want 2", len(blocks))
	}
	for i, b := range blocks {
		config, rest, _ := strings.Cut(b, "```")
		_, want, ok := strings.Cut(rest, "```text\n")
		if want, _, ok = strings.Cut(want, "```"); !ok {
			t.Fatalf("yaml example %d has no ```text block after it", i+1)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "flow.yaml"), []byte(config), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cmd := exec.CommandContext(ctx, octoBin, "validate", "--config", "flow.yaml")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Fatalf("example %d: want exit 1, got %v\n%s", i+1, err, out)
		}
		if string(out) != want {
			t.Errorf("example %d prints\n%s\nthe README shows\n%s", i+1, out, want)
		}
	}
}
