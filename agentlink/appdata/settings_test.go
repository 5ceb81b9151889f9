package appdata

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/octo-run/octo/runtime/config"
)

func TestLoadSettingsWithoutAFileGivesTheDefaults(t *testing.T) {
	s, err := LoadSettings(t.TempDir())
	want := Settings{Agents: Agents{Approve: ApproveChanges}}
	if err != nil || s != want {
		t.Fatalf("LoadSettings = %+v, %v; want %+v", s, err, want)
	}
}

func TestSaveSettingsThenLoadSettings(t *testing.T) {
	for _, want := range []Settings{
		{Workspace: "/home/u/mocks", Agents: Agents{Allow: true, WithoutApp: true, Approve: ApproveNever}},
		{Workspace: `C:\Users\u\My "mocks": #1`, Agents: Agents{Approve: ApproveChanges}},
		{Workspace: "/tmp/tab\tnew\nline ünï \x00 \u2028", Agents: Agents{Allow: true, Approve: ApproveChanges}},
		{Agents: Agents{Approve: ApproveChanges}},
	} {
		dir := filepath.Join(t.TempDir(), "data")
		if err := SaveSettings(dir, want); err != nil {
			t.Fatal(err)
		}
		got, err := LoadSettings(dir)
		if err != nil || got != want {
			t.Fatalf("LoadSettings = %+v, %v; want %+v", got, err, want)
		}
		if fi, _ := os.Stat(filepath.Join(dir, SettingsFile)); fi.Mode().Perm() != 0o600 {
			t.Fatalf("settings.yaml mode %v, want 0600", fi.Mode())
		}
	}
}

func TestSaveSettingsRefusesWhatTheFileCannotHold(t *testing.T) {
	dir := t.TempDir()
	if err := SaveSettings(dir, Settings{Agents: Agents{Approve: "always"}}); err == nil {
		t.Fatal("saved approve: always")
	}
	if err := SaveSettings(dir, Settings{Workspace: "/x\xff", Agents: Agents{Approve: ApproveNever}}); err == nil {
		t.Fatal("saved a workspace path that is not UTF-8")
	}
	if _, err := os.Stat(filepath.Join(dir, SettingsFile)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("a refused save wrote the file")
	}
}

func TestLoadSettingsReportsMistakesAtTheirLines(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"an unknown approve", "agents:\n  approve: always\n", "settings.yaml:2:"},
		{"an unknown key", "workspace: /w\nagent:\n  allow: true\n", "settings.yaml:2:"},
		{"a bool that is not one", "agents:\n  allow: sure\n", "settings.yaml:2:"},
		{"broken YAML", "agents: [\n", "settings.yaml:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, SettingsFile), []byte(tc.text), 0o600)
			_, err := LoadSettings(dir)
			var ds config.Diags
			if !errors.As(err, &ds) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadSettings: %v; want diagnostics at %q", err, tc.want)
			}
		})
	}
}

func TestLoadSettingsRefusesFilesOthersCanChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, SettingsFile)
	os.WriteFile(path, []byte("agents: {allow: true}\n"), 0o600)
	os.Chmod(path, 0o666)
	if _, err := LoadSettings(dir); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("LoadSettings of a file others can write: %v, want ErrUnsafe", err)
	}
	os.Chmod(path, 0o644) // readable is fine: settings are no secret
	if s, err := LoadSettings(dir); err != nil || !s.Agents.Allow {
		t.Fatalf("LoadSettings of a 0644 file: %+v, %v", s, err)
	}
	link := t.TempDir()
	os.Symlink(path, filepath.Join(link, SettingsFile))
	if _, err := LoadSettings(link); !errors.Is(err, ErrUnsafe) {
		t.Fatalf("LoadSettings through a symlink: %v, want ErrUnsafe", err)
	}
}

// A data folder another user owns, or that the group or others may write in, is refused with
// a message that names it and says why, and so is a settings.yaml another user owns.
func TestAFolderOrFileOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root (CI runs as root)")
	}
	t.Run("a folder another user owns", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		err := SaveSettings(dir, Settings{Agents: Agents{Approve: ApproveChanges}})
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "belongs to user 65534") || !strings.Contains(err.Error(), dir) {
			t.Fatalf("SaveSettings = %v", err)
		}
		if _, err := LockApp(dir); !errors.Is(err, ErrUnsafe) {
			t.Fatalf("LockApp = %v", err)
		}
	})
	t.Run("a folder others may write in", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		err := SaveSettings(dir, Settings{Agents: Agents{Approve: ApproveChanges}})
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "mode 0777 lets the group or others write in it (chmod 700 it)") {
			t.Fatalf("SaveSettings = %v", err)
		}
	})
	t.Run("a settings.yaml another user owns", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, SettingsFile)
		if err := os.WriteFile(path, []byte("agents: { allow: true, approve: never }\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadSettings(dir); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "belongs to user 65534") {
			t.Fatalf("LoadSettings = %v", err)
		}
	})
}
