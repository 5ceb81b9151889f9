package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// dieWithParent asks the kernel to kill octo if this process dies without
// running its cleanup (SIGKILL, a crash), so no server is left behind.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// selfCPU is the user+system CPU time this process has used.
func selfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// processCPU is the user+system CPU time process pid has used, from
// /proc/pid/stat (utime and stime, fields 14 and 15, in USER_HZ ticks,
// which the kernel ABI fixes at 100 per second).
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	s := string(b)
	end := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if end < 0 {
		return 0, false
	}
	f := strings.Fields(s[end+1:]) // f[0] is field 3, the state
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * (time.Second / 100), true
}

// residentKB is process pid's resident set size (VmRSS), in kB.
func residentKB(pid int) (int, bool) { return statusKB(pid, "VmRSS") }

// residentParts says what pid's resident size is made of: its own memory (heap, stacks:
// RssAnon) and the pages of its executable and other files it has mapped (RssFile).
func residentParts(pid int) string {
	own, ok1 := statusKB(pid, "RssAnon")
	file, ok2 := statusKB(pid, "RssFile")
	if !ok1 || !ok2 {
		return ""
	}
	return fmt.Sprintf(" (own %.1f + files %.1f)", float64(own)/1024, float64(file)/1024)
}

// statusKB reads one kB field of /proc/pid/status.
func statusKB(pid int, field string) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return kb, err == nil
		}
	}
	return 0, false
}
