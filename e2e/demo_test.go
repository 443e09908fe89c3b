package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/platform/backend/internal/testenv"
)

// demoFile is .stack/demo.json as scripts/demo.sh writes it.
type demoFile struct {
	Operator, Tenant struct {
		OrganizationID string   `json:"organization_id"`
		APIKey         string   `json:"api_key"`
		Administration bool     `json:"administration"`
		Scopes         []string `json:"scopes"`
	}
}

// runDemo runs scripts/demo.sh (what `make run` sources) on a database.
func runDemo(t *testing.T, databaseURL, prefix, file string) (string, demoFile) {
	t.Helper()
	cmd := exec.Command("bash", "scripts/demo.sh")
	cmd.Dir = ".." // the repository root, as run.sh
	cmd.Env = append(baseEnv(), "DATABASE_URL="+databaseURL, "PLATFORM_TOPIC_PREFIX="+prefix,
		"PLATFORMCTL="+bin.platformctl, "DEMO_FILE="+file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/demo.sh: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d demoFile
	if err := json.Unmarshal(raw, &d); err != nil || d.Operator.APIKey == "" || d.Tenant.APIKey == "" {
		t.Fatalf("demo file %s (%v)", raw, err)
	}
	return stdout.String(), d
}

// TestDemoOrganizations: `make run` gives a new user an operator key of the
// platform administration organization, clearly labelled, and a plain
// tenant organization with its own key; running it again changes nothing,
// and the demo file of an older make run (the administration organization
// alone) gets its tenant. Over HTTP the tenant key acts as a tenant and
// cannot reach platform operations; the operator key can.
func TestDemoOrganizations(t *testing.T) {
	// A fresh deployment: both organizations are made, once.
	fresh := filepath.Join(t.TempDir(), "demo.json")
	db := testenv.NewDatabase(t)
	out, d := runDemo(t, db, testenv.UniqueName("demo"), fresh)
	if !d.Operator.Administration || d.Tenant.Administration || d.Operator.OrganizationID == d.Tenant.OrganizationID {
		t.Fatalf("want an administration (operator) organization and a plain tenant: %+v", d)
	}
	for _, s := range d.Tenant.Scopes {
		if s == "projections:replay" || s == "privacy:maintain" {
			t.Errorf("the tenant key holds platform scope %s", s)
		}
	}
	for _, want := range []string{"operator key:          " + d.Operator.APIKey, "tenant key:            " + d.Tenant.APIKey} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	before, _ := os.ReadFile(fresh)
	runDemo(t, db, testenv.UniqueName("demo"), fresh)
	if after, _ := os.ReadFile(fresh); !bytes.Equal(before, after) {
		t.Fatalf("a second run changed the demo file:\n%s\n%s", before, after)
	}

	// A kept tenant key lacking a scope the platform gives now (a service
	// added since): the tenant gets another key with every scope, the
	// operator's stays, and a further run changes nothing.
	want := d.Tenant.Scopes
	at := bytes.Index(before, []byte(`"tenant":`))
	if at < 0 {
		t.Fatalf("no tenant in the demo file: %s", before)
	}
	lacking := append(bytes.Clone(before[:at]), bytes.Replace(before[at:], []byte(`"`+want[len(want)-1]+`"`), []byte(`"`+want[0]+`"`), 1)...)
	if bytes.Equal(lacking, before) {
		t.Fatal("could not take a scope out of the kept tenant key")
	}
	if err := os.WriteFile(fresh, lacking, 0o600); err != nil {
		t.Fatal(err)
	}
	out, renewed := runDemo(t, db, testenv.UniqueName("demo"), fresh)
	if renewed.Operator.APIKey != d.Operator.APIKey || renewed.Tenant.APIKey == d.Tenant.APIKey ||
		renewed.Tenant.OrganizationID != d.Tenant.OrganizationID || !slices.Equal(renewed.Tenant.Scopes, want) ||
		!strings.Contains(out, "made again: tenant key") {
		t.Fatalf("a kept key lacking a scope: want a new tenant key with %v, the operator's kept:\n%+v\n%s", want, renewed, out)
	}
	before, _ = os.ReadFile(fresh)
	runDemo(t, db, testenv.UniqueName("demo"), fresh)
	if after, _ := os.ReadFile(fresh); !bytes.Equal(before, after) {
		t.Fatalf("a run after the renewal changed the demo file:\n%s\n%s", before, after)
	}

	// An older make run's file: its organization stays the operator's.
	s := NewStack(t)
	old := filepath.Join(t.TempDir(), "demo.json")
	if err := os.WriteFile(old, fmt.Appendf(nil, `{"administration":true,"api_key":%q,"key_id":%q,"organization_id":%q,"user_id":%q}`+"\n",
		s.APIKey, s.KeyID, s.OrgID, s.UserID), 0o600); err != nil {
		t.Fatal(err)
	}
	_, d = runDemo(t, s.DatabaseURL, s.Prefix, old)
	if d.Operator.APIKey != s.APIKey || d.Operator.OrganizationID != s.OrgID || d.Tenant.Administration || d.Tenant.APIKey == "" {
		t.Fatalf("older demo file: want its organization as the operator and a new tenant: %+v", d)
	}

	srv := s.StartServer(ServerOptions{})
	incident := map[string]any{"title": "Demo", "message": "Investigating", "severity": "minor"}
	expect(t, "tenant creates an incident", do(t, Req{Method: http.MethodPost, URL: srv.URL("status") + "/api/incidents",
		Key: d.Tenant.APIKey, Body: incident}), http.StatusCreated)
	expect(t, "tenant lists projections", do(t, Req{Method: http.MethodGet, URL: srv.URL("ops") + "/api/projections",
		Key: d.Tenant.APIKey}), http.StatusForbidden)
	expect(t, "operator lists projections", do(t, Req{Method: http.MethodGet, URL: srv.URL("ops") + "/api/projections",
		Key: d.Operator.APIKey}), http.StatusOK)
}
