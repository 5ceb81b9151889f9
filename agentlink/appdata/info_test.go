package appdata

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newInfo(t *testing.T) Info {
	t.Helper()
	i, err := NewInfo(4242)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

func TestNewInfoMakesFreshSecrets(t *testing.T) {
	a, b := newInfo(t), newInfo(t)
	if a.Token == b.Token || a.Instance == b.Instance {
		t.Fatal("two infos share a token or an instance")
	}
	key, err := a.Key()
	if err != nil || len(key) != 32 || len(a.Token) != 43 || strings.ContainsAny(a.Token, "+/=") {
		t.Fatalf("token %q: %v; want 32 bytes in unpadded base64url", a.Token, err)
	}
	if len(a.Instance) != 32 || a.PID != os.Getpid() || a.Port != 4242 {
		t.Fatalf("info %+v", a)
	}
}

func TestWriteInfoThenReadInfo(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // made by WriteInfo
	want := newInfo(t)
	if err := WriteInfo(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadInfo(dir)
	if err != nil || got != want {
		t.Fatalf("ReadInfo = %+v, %v; want %+v", got, err, want)
	}
	fi, err := os.Stat(filepath.Join(dir, InfoFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("agent.json mode %v, %v; want 0600", fi.Mode(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("the data folder's mode is %v, want 0700", di.Mode())
	}
	var fields map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, InfoFile))
	if json.Unmarshal(data, &fields) != nil || len(fields) != 4 || fields["port"] != 4242.0 {
		t.Fatalf("agent.json holds %s; want port, token, pid and instance", data)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("the data folder holds %d entries; the temporary file was left", len(entries))
	}
}

func TestWriteInfoReplacesTheFileButNotASymlink(t *testing.T) {
	dir := t.TempDir()
	if err := WriteInfo(dir, newInfo(t)); err != nil {
		t.Fatal(err)
	}
	second := newInfo(t)
	if err := WriteInfo(dir, second); err != nil {
		t.Fatal(err)
	}
	if got, _ := ReadInfo(dir); got != second {
		t.Fatal("the second WriteInfo did not replace the first")
	}

	elsewhere := filepath.Join(t.TempDir(), "target")
	link := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(link, InfoFile)); err != nil {
		t.Fatal(err)
	}
	if err := WriteInfo(link, second); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("WriteInfo over a symlink: %v, want ErrUnsafe", err)
	}
	if _, err := os.Lstat(elsewhere); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("WriteInfo wrote through the symlink")
	}

	folder := t.TempDir()
	os.Mkdir(filepath.Join(folder, InfoFile), 0o700)
	if err := WriteInfo(folder, second); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "a folder") {
		t.Fatalf("WriteInfo over a folder: %v, want ErrUnsafe", err)
	}
}

func TestWriteInfoFailsWhereNoFolderCanBeMade(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	err := WriteInfo(filepath.Join(file, "data"), newInfo(t))
	if err == nil || !strings.Contains(err.Error(), "making the data folder") {
		t.Fatalf("WriteInfo under a file: %v", err)
	}
}

func TestReadInfoRefusesUnsafeFiles(t *testing.T) {
	good := newInfo(t)
	data, _ := json.Marshal(good)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		want  string
	}{
		{"a symlink to a private file", func(t *testing.T, dir string) {
			target := filepath.Join(t.TempDir(), "real.json")
			os.WriteFile(target, data, 0o600)
			os.Symlink(target, filepath.Join(dir, InfoFile))
		}, "symbolic link"},
		{"a folder", func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, InfoFile), 0o700) }, "a folder"},
		{"a file the group can read", func(t *testing.T, dir string) { writeMode(t, dir, data, 0o640) }, "mode 0640 lets the group or others read it"},
		{"a file others can read", func(t *testing.T, dir string) { writeMode(t, dir, data, 0o604) }, "mode 0604"},
		{"a file others can write", func(t *testing.T, dir string) { writeMode(t, dir, data, 0o602) }, "write it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.setup(t, dir)
			_, err := ReadInfo(dir)
			if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadInfo: %v; want ErrUnsafe saying %q", err, tc.want)
			}
		})
	}
}

func writeMode(t *testing.T, dir string, data []byte, mode os.FileMode) {
	t.Helper()
	path := filepath.Join(dir, InfoFile)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func TestReadInfoWithoutAFileIsErrNoApp(t *testing.T) {
	if _, err := ReadInfo(t.TempDir()); !errors.Is(err, ErrNoApp) {
		t.Fatalf("ReadInfo: %v, want ErrNoApp", err)
	}
	if _, err := ReadInfo(filepath.Join(t.TempDir(), "never made")); !errors.Is(err, ErrNoApp) {
		t.Fatalf("ReadInfo of a missing folder: %v, want ErrNoApp", err)
	}
}

func TestReadInfoRefusesWhatIsNotAUsableInfo(t *testing.T) {
	good := newInfo(t)
	for name, text := range map[string]string{
		"not JSON":            "port=1",
		"a port of 0":         `{"port":0,"token":"` + good.Token + `","pid":1,"instance":"` + good.Instance + `"}`,
		"a port over 65535":   `{"port":65536,"token":"` + good.Token + `","pid":1,"instance":"` + good.Instance + `"}`,
		"a short token":       `{"port":1,"token":"AAAA","pid":1,"instance":"` + good.Instance + `"}`,
		"a padded token":      `{"port":1,"token":"` + good.Token + `=","pid":1,"instance":"` + good.Instance + `"}`,
		"no instance":         `{"port":1,"token":"` + good.Token + `","pid":1}`,
		"an instance not hex": `{"port":1,"token":"` + good.Token + `","pid":1,"instance":"` + strings.Repeat("z", 32) + `"}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeMode(t, dir, []byte(text), 0o600)
			if _, err := ReadInfo(dir); err == nil || errors.Is(err, ErrNoApp) {
				t.Fatalf("ReadInfo: %v, want an error about the content", err)
			}
		})
	}
}

func TestRemoveInfoRemovesOnlyItsOwnFile(t *testing.T) {
	dir := t.TempDir()
	mine, newer := newInfo(t), newInfo(t)
	if err := WriteInfo(dir, newer); err != nil {
		t.Fatal(err)
	}
	if err := RemoveInfo(dir, mine.Instance); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadInfo(dir); err != nil || got != newer {
		t.Fatalf("RemoveInfo of another instance removed the newer app's file: %v", err)
	}
	if err := RemoveInfo(dir, newer.Instance); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadInfo(dir); !errors.Is(err, ErrNoApp) {
		t.Fatalf("after RemoveInfo: %v, want ErrNoApp", err)
	}
	if err := RemoveInfo(dir, newer.Instance); err != nil {
		t.Fatalf("RemoveInfo of a missing file: %v", err)
	}
}
