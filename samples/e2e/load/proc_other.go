//go:build !linux

package main

import (
	"os/exec"
	"time"
)

// dieWithParent has no portable equivalent outside Linux; the deferred stop
// still ends octo on every normal or failed exit.
func dieWithParent(*exec.Cmd) {}

// selfCPU and processCPU are measured on Linux only; elsewhere the CPU
// columns are left out.
func selfCPU() (time.Duration, bool) { return 0, false }

func processCPU(int) (time.Duration, bool) { return 0, false }

func residentKB(int) (int, bool) { return 0, false }

func residentParts(int) string { return "" }
