package render

import (
	"errors"
	"fmt"
)

// ErrUnrenderable marks a composition this renderer cannot draw however
// often it tries (an unknown asset kind, an unreadable image or font, a
// video layer): a job fails at once instead of retrying. Other errors (the
// asset store unavailable, ffmpeg killed, the time limit) may pass on a
// retry.
var ErrUnrenderable = errors.New("unrenderable composition")

// Error is an unrenderable composition: where (a JSON pointer into the
// render's input) and why, short enough for a job's failure reason.
type Error struct {
	Pointer string
	Reason  string
}

func (e *Error) Error() string { return e.Pointer + ": " + e.Reason }

func (e *Error) Is(target error) bool { return target == ErrUnrenderable }

func unrenderable(pointer, format string, args ...any) error {
	return &Error{Pointer: pointer, Reason: fmt.Sprintf(format, args...)}
}
