package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// durations are the timings octo test prints, which differ from run to run.
var durations = regexp.MustCompile(`\(\d+(\.\d+)?(ms|s|µs)\)`)

// The OpenAPI guide's transcript prints as shown: each `$ bin/octo …` line is run from a folder
// where the repository's blocks/ is at hand, and what it prints is compared line by line.
func TestTheOpenAPIGuideTranscriptPrintsAsShown(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "guides", "openapi.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "```console\n")
	transcript, _, _ := strings.Cut(rest, "```")
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repoRoot(), "blocks"), filepath.Join(dir, "blocks")); err != nil {
		t.Fatal(err)
	}
	steps := strings.Split(transcript, "$ bin/octo ")[1:]
	if len(steps) != 2 {
		t.Fatalf("the transcript has %d commands, want 2", len(steps))
	}
	for _, step := range steps {
		line, want, _ := strings.Cut(step, "\n")
		cmd := exec.Command(octoBin, strings.Fields(line)...)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("octo %s: %v\n%s", line, err, out)
		}
		if got := durations.ReplaceAllString(string(out), "(…)"); got != durations.ReplaceAllString(want, "(…)") {
			t.Errorf("octo %s printed\n%s\nthe guide shows\n%s", line, got, want)
		}
	}
}
