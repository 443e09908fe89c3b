package module_test

import (
	"slices"
	"testing"
	"time"

	"github.com/platform/backend/internal/module"
)

type thingsConfig struct {
	Sandbox bool
	Poll    time.Duration
	Public  string
}

func (c *thingsConfig) FromEnv(getenv func(string) string) error {
	env := module.NewEnv(getenv)
	env.Bool("THINGS_SANDBOX", &c.Sandbox)
	env.Duration("THINGS_POLL", &c.Poll)
	env.String("THINGS_PUBLIC", &c.Public)
	return env.Err()
}
func (c *thingsConfig) Defaults()       {}
func (c *thingsConfig) Validate() error { return nil }

// TestTestEnvReachesBothHarnesses: a module's TestEnv is read into its
// section in-process (apptest) and given to platformd as variables (e2e),
// the bootstrap organization filled in for the one and left unset for the
// other; a value the section refuses is an error naming the module.
func TestTestEnvReachesBothHarnesses(t *testing.T) {
	things := module.Module{Name: "things", NewConfig: func() module.Section { return &thingsConfig{} },
		TestEnv: map[string]string{"THINGS_SANDBOX": "true", "THINGS_POLL": "-1s", "THINGS_PUBLIC": module.TestOrganization}}
	mods := []module.Module{things, {Name: "other"}}
	sections := module.NewSections(mods)
	if err := sections.ApplyTestEnv(mods); err != nil {
		t.Fatal(err)
	}
	if c := module.SectionOf[*thingsConfig](sections); !c.Sandbox || c.Poll != -time.Second || c.Public != "" {
		t.Fatalf("in-process: %+v", c)
	}
	want := []string{"THINGS_POLL=-1s", "THINGS_PUBLIC=org-1", "THINGS_SANDBOX=true"}
	if got := module.TestEnvOf(mods, "org-1"); !slices.Equal(got, want) {
		t.Fatalf("platformd's: %v, want %v", got, want)
	}
	things.TestEnv = map[string]string{"THINGS_POLL": "soon"}
	if err := module.NewSections(mods).ApplyTestEnv([]module.Module{things}); err == nil {
		t.Fatal("a value the section refuses was accepted")
	}
	if module.EnvPrefix(things) != "THINGS_" {
		t.Fatal(module.EnvPrefix(things))
	}
}
