package appdata

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestDataDirFollowsTheFlagThenTheVariableThenTheSystem(t *testing.T) {
	cwd, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, flag, goos string
		env              map[string]string
		want, wantErr    string
	}{
		{name: "the flag wins over everything", flag: "/d/flag", goos: "linux",
			env: map[string]string{"OCTO_DATA_DIR": "/d/env", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, want: "/d/flag"},
		{name: "a relative flag is made absolute", flag: "rel/data", goos: "linux", want: filepath.Join(cwd, "rel/data")},
		{name: "OCTO_DATA_DIR wins over the system", goos: "linux",
			env: map[string]string{"OCTO_DATA_DIR": "/d/env", "XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, want: "/d/env"},
		{name: "a relative OCTO_DATA_DIR is made absolute", goos: "darwin",
			env: map[string]string{"OCTO_DATA_DIR": "here"}, want: filepath.Join(cwd, "here")},
		{name: "linux uses XDG_DATA_HOME", goos: "linux",
			env: map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/home/u"}, want: "/xdg/octo"},
		{name: "linux falls back to ~/.local/share", goos: "linux",
			env: map[string]string{"HOME": "/home/u"}, want: "/home/u/.local/share/octo"},
		{name: "a relative XDG_DATA_HOME is ignored, as the XDG rules say", goos: "linux",
			env: map[string]string{"XDG_DATA_HOME": "xdg", "HOME": "/home/u"}, want: "/home/u/.local/share/octo"},
		{name: "other Unix systems follow the XDG rules", goos: "freebsd",
			env: map[string]string{"XDG_DATA_HOME": "/xdg"}, want: "/xdg/octo"},
		{name: "macOS uses Application Support", goos: "darwin",
			env: map[string]string{"XDG_DATA_HOME": "/xdg", "HOME": "/Users/u"}, want: "/Users/u/Library/Application Support/octo"},
		{name: "windows uses APPDATA", goos: "windows",
			env: map[string]string{"APPDATA": `/C/Users/u/AppData/Roaming`, "HOME": "/home/u"}, want: "/C/Users/u/AppData/Roaming/octo"},
		{name: "windows without APPDATA has none", goos: "windows",
			env: map[string]string{"HOME": "/home/u"}, wantErr: "%APPDATA% is not set"},
		{name: "linux without a home has none", goos: "linux", wantErr: "$HOME is not set"},
		{name: "a relative home does not count", goos: "darwin", env: map[string]string{"HOME": "u"}, wantErr: "$HOME is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dataDir(tc.flag, tc.goos, func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "OCTO_DATA_DIR") {
					t.Fatalf("got %q, %v; want an error saying %q and how to set one", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != filepath.FromSlash(tc.want) {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestDataDirReadsTheProcessEnvironment(t *testing.T) {
	t.Setenv("OCTO_DATA_DIR", "/from/env")
	if got, err := DataDir(""); err != nil || got != "/from/env" {
		t.Fatalf("DataDir = %q, %v", got, err)
	}
	if got, err := DataDir("/from/flag"); err != nil || got != "/from/flag" {
		t.Fatalf("DataDir(flag) = %q, %v", got, err)
	}
}
