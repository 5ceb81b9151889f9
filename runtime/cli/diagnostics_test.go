package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/runtimetest"
)

// validate shows each problem with the line it points at and a caret under the column, also
// inside a block scalar (| or >), where the column is the text's, not the marker's.
func TestValidateShowsTheLineAndACaret(t *testing.T) {
	const file = "../testdata/build/text-positions.yaml"
	code, _, errs := runCLI("validate", "--config", file)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	want := file + ":15:26: flows[0].process[0].settings.value (set-payload): unknown name boddy (did you mean body?)\n" +
		"    \"summary\": boddy.summary\n" +
		"               ^\n" +
		file + ":21:22: flows[0].process[1].settings.value (set-payload): unknown name nope\n" +
		"    body.b + nope\n" +
		"             ^\n" +
		file + ":25:40: flows[0].process[2].settings.message (log): unknown name missing\n" +
		"    {{ body.city }} and {{ missing }}\n" +
		"                           ^\n"
	if !strings.HasPrefix(errs, want) {
		t.Errorf("got\n%s\nwant it to start with\n%s", errs, want)
	}
}

// With --log-format json the output is for machines: one line per problem, no excerpts.
func TestRunWithAJSONLogKeepsOneLinePerProblem(t *testing.T) {
	const file = "../testdata/build/text-positions.yaml"
	code, _, errs := runCLI("run", "--log-format", "json", "--config", file)
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("want 6 lines, one per problem, got %d:\n%s", len(lines), errs)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, file+":") {
			t.Errorf("not a diagnostic: %q", l)
		}
	}
}

// validate reports the problems of every stage in one run: a file with a syntax error does not
// stop the others from being checked (without noise about what the broken file declared), and
// the build checks what of a config with problems is sound. Each folder under
// testdata/all-at-once holds a config and want.golden, the output expected.
func TestValidateReportsEveryProblemAtOnce(t *testing.T) {
	dirs, err := filepath.Glob("testdata/all-at-once/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no configs under testdata/all-at-once: %v", err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			code, _, errs := runCLI("validate", "--config", dir)
			if code != 1 {
				t.Fatalf("exit %d\n%s", code, errs)
			}
			runtimetest.Golden(t, filepath.Join(dir, "want.golden"), errs, *update)
		})
	}
}
