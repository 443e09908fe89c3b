package agent_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/commands"
	identitycmd "github.com/platform/backend/commands/identity"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/apptest"
)

// person is a user of an organization with a role (apptest.Person).
type person = apptest.Person

func newPerson(t *testing.T, h *apptest.Harness, org, role string) person {
	return h.NewPerson(t, org, role)
}

// setRole changes a member's role (an owner's doing).
func setRole(t *testing.T, h *apptest.Harness, org, userID, role string) {
	t.Helper()
	if _, err := h.Identity().ChangeMemberRole(context.Background(), commands.Meta{OrganizationID: org,
		Actor: eventstore.Actor{ID: "apptest", Type: "system"}}, identity.Actor{Role: identity.RoleOwner},
		identitycmd.SetMember{OrganizationID: org, UserID: userID, Role: role}); err != nil {
		t.Fatal(err)
	}
}

func call(t *testing.T, h *apptest.Harness, method, path, token string, body any, want int, out any, headers ...string) apptest.Response {
	t.Helper()
	res := h.Do(t, "agent", method, path, token, body, headers...)
	apptest.Must(t, res, want, method+" "+path)
	if out != nil {
		res.JSON(t, out)
	}
	return res
}

// run is a run as the tests read it.
type run struct {
	RunID  string `json:"runId"`
	FlowID string `json:"flowId"`
	Status string `json:"status"`
	Reason string `json:"reason"`
	Steps  []struct {
		Index      int             `json:"index"`
		Status     string          `json:"status"`
		Input      json.RawMessage `json:"input"`
		Output     json.RawMessage `json:"output"`
		HTTPStatus int             `json:"httpStatus"`
		Attempts   int             `json:"attempts"`
		WaitID     string          `json:"waitId"`
		JobID      string          `json:"jobId"`
		Decision   *struct {
			Kind string `json:"kind"`
			By   *struct {
				ID string `json:"id"`
			} `json:"by"`
		} `json:"decision"`
		Failure *struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
			Reason string `json:"reason"`
		} `json:"failure"`
		StartedAt  *time.Time `json:"startedAt"`
		FinishedAt *time.Time `json:"finishedAt"`
	} `json:"steps"`
}

// waitRun polls a run until cond holds.
func waitRun(t *testing.T, h *apptest.Harness, token, id, what string, cond func(run) bool) run {
	t.Helper()
	var r run
	apptest.Eventually(t, 60*time.Second, what, func() bool {
		res := h.Do(t, "agent", http.MethodGet, "/api/runs/"+id, token, nil)
		if res.Status != http.StatusOK {
			return false
		}
		r = run{}
		res.JSON(t, &r)
		return cond(r)
	})
	return r
}

// flowOf is a flow as the tests create it.
type flowOf struct {
	FlowID string `json:"flowId"`
	State  string `json:"state"`
}

// threeSteps reads the status incidents, opens one (its action requires
// confirmation: an approval), and reads the one it opened.
func threeSteps(name string) map[string]any {
	return map[string]any{"name": name, "trigger": map[string]any{"type": "manual"}, "steps": []any{
		map[string]any{"name": "read incidents", "service": "status", "action": "incidents.list",
			"input": map[string]any{"status": "all", "limit": 5}},
		map[string]any{"name": "open incident", "service": "status", "action": "incidents.create",
			"input": map[string]any{"title": map[string]any{"$from": "/trigger/data/title"}, "message": "Opened by a flow",
				"severity": map[string]any{"$from": "/trigger/data/severity", "default": "minor"}}},
		map[string]any{"name": "read it back", "service": "status", "action": "incidents.list",
			"input": map[string]any{"incidentId": map[string]any{"$from": "/steps/1/output/incident_id"}}},
	}}
}

// count runs a count query.
func count(t *testing.T, h *apptest.Harness, sql string, args ...any) int64 {
	t.Helper()
	return h.Count(t, sql, args...)
}
