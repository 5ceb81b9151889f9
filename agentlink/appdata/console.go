package appdata

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// ConsoleFile is the file, in the data folder, that holds the console's login link.
const ConsoleFile = "console.json"

// OpenFile is the page `octo app --open` hands the browser: it forwards to the login link, so
// that the link's secret never shows in a command line, which other users can list.
const OpenFile = "console-open.html"

// ErrNoConsole is ReadConsole's error when no console serves from the data folder.
var ErrNoConsole = errors.New("no octo app console is serving: no " + ConsoleFile)

// Console is what console.json holds: where the running app's console serves, and its login
// link, which carries a one-time secret. Whoever holds the link can open the console as the
// user, so the file is written and read as agent.json is: readable by the user only.
type Console struct {
	URL   string `json:"url"`   // the console's address: http://127.0.0.1:PORT/
	Login string `json:"login"` // URL + login?secret=…: good for one login, then replaced
	PID   int    `json:"pid"`   // the app's process
}

// check refuses a link that is not the console's own kind of address: a file another
// process planted could otherwise send the user's browser, or --print-url's reader, elsewhere.
func (c Console) check() error {
	for _, link := range []string{c.URL, c.Login} {
		u, err := url.Parse(link)
		if err != nil || u.Scheme != "http" || u.Hostname() != "127.0.0.1" || u.Port() == "" {
			return fmt.Errorf("%q is not a console address on http://127.0.0.1", link)
		}
	}
	return nil
}

// WriteConsole writes c as dir/console.json, readable by the user only, replacing it at once.
func WriteConsole(dir string, c Console) error {
	if err := c.check(); err != nil {
		return fmt.Errorf("writing %s: %w", ConsoleFile, err)
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(dir, ConsoleFile, append(data, '\n'))
}

// ReadConsole reads dir/console.json: ErrNoConsole when there is none, an ErrUnsafe error when
// someone else could have read or written it.
func ReadConsole(dir string) (Console, error) {
	path := filepath.Join(dir, ConsoleFile)
	data, err := readChecked(path, 0o077, maxInfoBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return Console{}, ErrNoConsole
	}
	if err != nil {
		return Console{}, err
	}
	var c Console
	if err := json.Unmarshal(data, &c); err != nil {
		return Console{}, fmt.Errorf("%s: %w", path, err)
	}
	if err := c.check(); err != nil {
		return Console{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// RemoveConsole removes dir/console.json if it still names the console at consoleURL: a
// console that stops removes its own file, never a newer one's.
func RemoveConsole(dir, consoleURL string) error {
	c, err := ReadConsole(dir)
	if err != nil || c.URL != consoleURL {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, ConsoleFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// WriteOpenPage writes dir/console-open.html, readable by the user only: a page that forwards
// the browser to login. It returns the page's path.
func WriteOpenPage(dir, login string) (string, error) {
	if err := (Console{URL: login, Login: login}).check(); err != nil {
		return "", err
	}
	quoted, err := json.Marshal(login) // a JavaScript string; json.Marshal escapes <, > and &
	if err != nil {
		return "", err
	}
	page := "<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n" +
		"<title>Opening the octo console</title>\n<p>Opening the octo console…</p>\n" +
		"<script>location.replace(" + string(quoted) + ")</script>\n"
	if err := writePrivate(dir, OpenFile, []byte(page)); err != nil {
		return "", err
	}
	return filepath.Join(dir, OpenFile), nil
}
