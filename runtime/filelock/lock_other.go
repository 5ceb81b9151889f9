//go:build !unix && !windows

package filelock

import (
	"errors"
	"os"
)

// tryLock fails: this system has no file locks octo knows how to take.
func tryLock(*os.File) (bool, error) { return false, errors.ErrUnsupported }

func unlock(*os.File) error { return errors.ErrUnsupported }

const noFollow = 0
