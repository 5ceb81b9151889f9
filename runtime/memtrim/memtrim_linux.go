package memtrim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// region is one mapping of /proc/self/smaps, with the fields the hand-back decides on.
type region struct {
	start, end uint64
	perms      string
	dev        string // major:minor, hex, as smaps writes it
	inode      uint64
	rss        int64 // bytes
	anon       int64 // bytes of private copies: a page written since it was read from the file
}

// releaseCode unmaps the executable's resident pages in its mappings that are read-only and
// hold no private copy. Only such a page is sure to come back the same from the file: a
// writable mapping (the data segment) or one with a private copy (relocated read-only data
// of a position-independent build) would come back as the file has it, not as the process
// left it.
func releaseCode() (Report, error) {
	var st syscall.Stat_t
	if err := syscall.Stat("/proc/self/exe", &st); err != nil {
		return Report{}, err
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return Report{}, err
	}
	defer f.Close()
	regions, err := readSmaps(f)
	if err != nil {
		return Report{}, err
	}
	exeDev := fmt.Sprintf("%02x:%02x", major(uint64(st.Dev)), minor(uint64(st.Dev)))
	var rep Report
	for _, r := range regions {
		if r.inode != st.Ino || r.dev != exeDev || strings.ContainsRune(r.perms, 'w') || r.anon != 0 || r.rss == 0 {
			continue
		}
		if _, _, e := syscall.Syscall(syscall.SYS_MADVISE, uintptr(r.start), uintptr(r.end-r.start), syscall.MADV_DONTNEED); e != 0 {
			return rep, fmt.Errorf("madvise %x-%x: %w", r.start, r.end, e)
		}
		rep.Mapped += r.rss
		rep.Regions++
	}
	return rep, nil
}

// readSmaps reads the mappings' headers and their Rss and Anonymous sizes.
func readSmaps(rd io.Reader) ([]region, error) {
	var out []region
	sc := bufio.NewScanner(rd)
	for sc.Scan() {
		line := sc.Text()
		if key, val, ok := strings.Cut(line, ":"); ok && !strings.Contains(key, " ") && !strings.Contains(key, "-") {
			if len(out) == 0 {
				continue
			}
			cur := &out[len(out)-1]
			switch key {
			case "Rss":
				cur.rss = kB(val)
			case "Anonymous":
				cur.anon = kB(val)
			}
			continue
		}
		// A header: start-end perms offset dev inode [path].
		f := strings.Fields(line)
		if len(f) < 5 {
			return nil, fmt.Errorf("smaps: unexpected line %q", line)
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		inode, err3 := strconv.ParseUint(f[4], 10, 64)
		if !ok || errors.Join(err1, err2, err3) != nil {
			return nil, fmt.Errorf("smaps: unexpected line %q", line)
		}
		out = append(out, region{start: start, end: end, perms: f[1], dev: f[3], inode: inode})
	}
	return out, sc.Err()
}

// kB reads a size such as "   1234 kB" as bytes; anything else is 0.
func kB(v string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
	if err != nil {
		return 0
	}
	return n << 10
}

// usage is the CPU time (user and system) the process has used, and its minor faults (each a
// page, or a run of file pages, mapped).
func usage() (use, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return use{}, false
	}
	return use{cpu: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), faults: ru.Minflt}, true
}

// major and minor split a device number as stat(2) gives it on Linux (12 bits of major and 20
// of minor, the low parts first).
func major(dev uint64) uint64 { return (dev>>8)&0xfff | (dev>>32)&0xfffff000 }
func minor(dev uint64) uint64 { return dev&0xff | (dev>>12)&0xffffff00 }
