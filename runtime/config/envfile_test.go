package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnEnvFileIsReadAsDotEnvFilesAreWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	text := "# secrets for the tests\nAPI_KEY=sk-123\nexport BASE = https://api.example.com/v1  # a comment\n" +
		"EMPTY=\nQUOTED='a #hash kept'\nESCAPED=\"line\\none \\\"q\\\"\"\n\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	got, ds := ReadEnvFile(path)
	want := map[string]string{"API_KEY": "sk-123", "BASE": "https://api.example.com/v1", "EMPTY": "",
		"QUOTED": "a #hash kept", "ESCAPED": "line\none \"q\""}
	if len(ds) > 0 || len(got) != len(want) {
		t.Fatalf("%q %v", got, ds)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestEnvFileMistakesAreReportedAtTheirLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".env")
	if err := os.WriteFile(path, []byte("OK=1\nno equals sign\n2BAD=x\nOPEN='never closed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, ds := ReadEnvFile(path)
	text := ds.Error()
	for _, want := range []string{":2:1: expected NAME=value", `:3:1: "2BAD" is not a variable name`, ":4:6: the value of OPEN: the quote ' is not closed"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
}
