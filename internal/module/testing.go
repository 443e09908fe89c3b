package module

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// TestOrganization, as a TestEnv value, is the organization an end-to-end
// platform is bootstrapped with (the e2e harness puts its id there);
// in-process platforms make their organizations after the start and leave
// such a variable unset.
const TestOrganization = "{test-organization}"

// ApplyTestEnv reads every module's TestEnv into its section (apptest),
// before the defaults; a variable naming TestOrganization stays unset.
func (s Sections) ApplyTestEnv(mods []Module) error {
	var errs []error
	for _, m := range mods {
		sec, ok := s[m.Name]
		if !ok || len(m.TestEnv) == 0 {
			continue
		}
		err := sec.FromEnv(func(k string) string {
			if v := m.TestEnv[k]; v != TestOrganization {
				return v
			}
			return ""
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: test settings: %w", m.Name, err))
		}
	}
	return errors.Join(errs...)
}

// TestEnvOf is every module's TestEnv as NAME=value, sorted, with the
// bootstrap organization's id in place of TestOrganization (the e2e
// harness's platformd environment).
func TestEnvOf(mods []Module, organizationID string) []string {
	var out []string
	for _, m := range mods {
		for k, v := range m.TestEnv {
			out = append(out, k+"="+strings.ReplaceAll(v, TestOrganization, organizationID))
		}
	}
	sort.Strings(out)
	return out
}

// EnvPrefix is the prefix of a module's own variables (STATUS_ of status):
// the e2e harness keeps a developer's out of the platforms it starts.
func EnvPrefix(m Module) string { return strings.ToUpper(m.Name) + "_" }
