// Package monitoring holds the operators' Grafana dashboard
// (grafana/platform.json) and Prometheus alert rules (prometheus/alerts.yml)
// over platformd's /metrics; this test holds them to a real /metrics.
package monitoring_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/platform/backend/internal/apptest"
)

var metricName = regexp.MustCompile(`\bplatform_[a-z0-9_]+`)

// dashboardExprs are the queries of every panel of the dashboard.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("grafana/platform.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		UID    string `json:"uid"`
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || doc.UID == "" {
		t.Fatalf("grafana/platform.json: %v", err)
	}
	var out []string
	for _, p := range doc.Panels {
		if p.Type != "row" && len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	return out
}

// ruleExprs are the expressions of every alert rule, each rule complete
// (a name, an expression, a severity, a summary).
func ruleExprs(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("prometheus/alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Groups) == 0 {
		t.Fatalf("prometheus/alerts.yml: %v", err)
	}
	var out []string
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Labels["severity"] == "" || r.Annotations["summary"] == "" {
				t.Errorf("group %s: incomplete rule %+v", g.Name, r)
			}
			if r.For != "" {
				if _, err := time.ParseDuration(r.For); err != nil {
					t.Errorf("rule %s: for %q", r.Alert, r.For)
				}
			}
			out = append(out, r.Expr)
		}
	}
	return out
}

// TestDashboardAndAlertsNameRealMetrics (issue 23): every metric the
// dashboard and the alert rules name is on a real platform's /metrics (the
// ops service), after the platform did a little of everything they watch:
// commands and queries, an AI call through the gateway, an incident (its
// notification, its projection), a problem answer. A histogram is named by its _bucket,
// _sum or _count series.
func TestDashboardAndAlertsNameRealMetrics(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	apptest.Must(t, h.Do(t, "gateway", http.MethodPost, "/api/ai/completions", "", map[string]any{"prompt": "hello", "max_tokens": 16}),
		http.StatusOK, "completion")
	apptest.Must(t, h.Do(t, "status", http.MethodPost, "/api/incidents", "", map[string]any{"title": "Slow", "message": "Looking",
		"severity": "minor"}), http.StatusCreated, "incident")
	apptest.Must(t, h.Do(t, "status", http.MethodGet, "/api/no-such-route", "", nil), http.StatusNotFound, "a problem answer")

	names := map[string]bool{}
	for _, expr := range append(dashboardExprs(t), ruleExprs(t)...) {
		for _, n := range metricName.FindAllString(expr, -1) {
			names[n] = true
		}
	}
	if len(names) < 15 {
		t.Fatalf("the dashboard and rules name only %d metrics", len(names))
	}
	var missing []string
	present := func() bool {
		res, err := http.Get(h.URLs["ops"] + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		res.Body.Close()
		exposed := map[string]bool{}
		for _, line := range strings.Split(string(raw), "\n") {
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			name := line
			if i := strings.IndexAny(line, "{ "); i >= 0 {
				name = line[:i]
			}
			exposed[name] = true
		}
		missing = missing[:0]
		for n := range names {
			if !exposed[n] {
				missing = append(missing, n)
			}
		}
		return len(missing) == 0
	}
	for deadline := time.Now().Add(30 * time.Second); !present() && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond) // the read side catches up (lag gauges appear with the first batch)
	}
	slices.Sort(missing)
	if len(missing) > 0 {
		t.Fatalf("named by the dashboard or the rules but not on /metrics: %v", missing)
	}
}
