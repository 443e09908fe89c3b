package module

import (
	"errors"
	"fmt"
)

// Sections are the modules' configuration sections, by module name.
type Sections map[string]Section

// NewSections makes every module's section, nothing set.
func NewSections(mods []Module) Sections {
	s := Sections{}
	for _, m := range mods {
		if m.NewConfig != nil {
			s[m.Name] = m.NewConfig()
		}
	}
	return s
}

// FromEnv reads every section's variables.
func (s Sections) FromEnv(getenv func(string) string) error {
	var errs []error
	for name, sec := range s {
		if err := sec.FromEnv(getenv); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// Defaults fills every section.
func (s Sections) Defaults() {
	for _, sec := range s {
		sec.Defaults()
	}
}

// Validate names every problem of every section.
func (s Sections) Validate() error {
	var errs []error
	for name, sec := range s {
		if err := sec.Validate(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// SectionOf returns the section of type T (a pointer to a module's config
// struct), for tests that adjust one before starting the platform:
//
//	module.SectionOf[*statusmod.Config](cfg.Modules).PollInterval = 0
//
// It returns the zero T (a nil pointer) when no module has that section.
func SectionOf[T Section](s Sections) T {
	for _, sec := range s {
		if t, ok := sec.(T); ok {
			return t
		}
	}
	var zero T
	return zero
}
