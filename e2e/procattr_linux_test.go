package e2e

import "syscall"

// childProcAttr kills a platformd child when the test binary dies (a panic or
// a -timeout), so no server outlives its test.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
