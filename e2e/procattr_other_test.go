//go:build !linux

package e2e

import "syscall"

func childProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
