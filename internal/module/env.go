package module

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Env reads environment variables over a configuration section's fields:
// a variable that is unset or empty leaves its field as it is, one that does
// not parse is an error naming it. Every error is kept, so a start that
// fails names every bad variable at once.
type Env struct {
	get  func(string) string
	errs []error
}

// NewEnv reads through getenv (os.Getenv in platformd).
func NewEnv(getenv func(string) string) *Env { return &Env{get: getenv} }

// Err is every parse error so far.
func (e *Env) Err() error { return errors.Join(e.errs...) }

func (e *Env) read(name string, parse func(string) error) {
	if v := e.get(name); v != "" {
		if err := parse(v); err != nil {
			e.errs = append(e.errs, fmt.Errorf("%s=%q: %w", name, v, err))
		}
	}
}

func (e *Env) String(name string, dst *string) {
	e.read(name, func(v string) error { *dst = v; return nil })
}

func (e *Env) Duration(name string, dst *time.Duration) {
	e.read(name, func(v string) (err error) { *dst, err = time.ParseDuration(v); return err })
}

func (e *Env) Int(name string, dst *int) {
	e.read(name, func(v string) (err error) { *dst, err = strconv.Atoi(v); return err })
}

func (e *Env) Int64(name string, dst *int64) {
	e.read(name, func(v string) (err error) { *dst, err = strconv.ParseInt(v, 10, 64); return err })
}

func (e *Env) Float(name string, dst *float64) {
	e.read(name, func(v string) (err error) { *dst, err = strconv.ParseFloat(v, 64); return err })
}

func (e *Env) Bool(name string, dst *bool) {
	e.read(name, func(v string) (err error) { *dst, err = strconv.ParseBool(v); return err })
}

// List reads a comma-separated list (blanks dropped).
func (e *Env) List(name string, dst *[]string) {
	e.read(name, func(v string) error { *dst = SplitList(v); return nil })
}

// Parse reads a variable with its own parser.
func (e *Env) Parse(name string, parse func(string) error) { e.read(name, parse) }

// SplitList splits a comma-separated list, dropping blanks.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
