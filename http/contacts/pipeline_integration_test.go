package contacts_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

// TestBoardAndHistory: the default pipeline and its ordered stages; moves
// group contacts by stage on the board; a contact's history lists every
// move with from, to, when, who and the time spent in the stage it left.
func TestBoardAndHistory(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	c := newClient(t, h, "")
	var pipelines struct {
		Pipelines []struct {
			PipelineID string `json:"pipeline_id"`
			IsDefault  bool   `json:"is_default"`
			Stages     []struct {
				StageID  string `json:"stage_id"`
				Position int    `json:"position"`
			} `json:"stages"`
		} `json:"pipelines"`
	}
	c.Do(http.MethodGet, "/api/pipeline", nil, http.StatusOK).JSON(t, &pipelines)
	p := pipelines.Pipelines[0]
	if len(pipelines.Pipelines) != 1 || !p.IsDefault || p.Stages[0].StageID != "lead" || p.Stages[5].Position != 6 {
		t.Fatalf("pipelines %+v", pipelines)
	}
	c.Do(http.MethodGet, "/api/pipeline/"+p.PipelineID, nil, http.StatusOK)
	c.Do(http.MethodGet, "/api/pipeline/00000000-0000-5000-8000-000000000000", nil, http.StatusNotFound)
	ann := c.create(map[string]any{"firstName": "Ann"})
	bob := c.create(map[string]any{"firstName": "Bob"})
	c.create(map[string]any{"firstName": "Cy", "stageId": "won"})
	c.Do(http.MethodPut, "/api/pipeline/"+ann.ContactID+"/move", map[string]any{"stageId": "qualified"}, http.StatusOK)
	time.Sleep(1100 * time.Millisecond) // a second in qualified
	var moved contact
	c.Do(http.MethodPut, "/api/pipeline/"+ann.ContactID+"/move", map[string]any{"stageId": "won"}, http.StatusOK).JSON(t, &moved)
	if moved.StageID != "won" {
		t.Fatalf("moved %+v", moved)
	}
	c.Do(http.MethodPut, "/api/pipeline/"+ann.ContactID+"/move", map[string]any{"stageId": "won"}, http.StatusOK) // already there: nothing recorded
	c.Do(http.MethodPut, "/api/pipeline/"+ann.ContactID+"/move", map[string]any{"stageId": "nowhere"}, http.StatusBadRequest)
	c.Do(http.MethodPut, "/api/pipeline/"+ann.ContactID+"/move", map[string]any{}, http.StatusBadRequest)
	c.Do(http.MethodPut, "/api/pipeline/00000000-0000-7000-8000-000000000000/move", map[string]any{"stageId": "won"}, http.StatusNotFound)
	var board struct {
		Stages []struct {
			StageID  string    `json:"stage_id"`
			Count    int       `json:"count"`
			Contacts []contact `json:"contacts"`
		} `json:"stages"`
	}
	c.Do(http.MethodGet, "/api/pipeline/"+p.PipelineID+"/board", nil, http.StatusOK).JSON(t, &board)
	counts := map[string]int{}
	for _, s := range board.Stages {
		counts[s.StageID] = s.Count
		if len(s.Contacts) != s.Count {
			t.Fatalf("stage %s shows %d of %d", s.StageID, len(s.Contacts), s.Count)
		}
	}
	if counts["lead"] != 1 || counts["won"] != 2 || counts["qualified"] != 0 || board.Stages[4].StageID != "won" {
		t.Fatalf("board %+v", board)
	}
	if board.Stages[4].Contacts[0].ContactID != ann.ContactID {
		t.Fatalf("won: newest arrival first, got %+v", board.Stages[4].Contacts)
	}
	var history struct {
		ContactID string `json:"contact_id"`
		Current   struct {
			StageID        string `json:"stage_id"`
			SecondsInStage int64  `json:"seconds_in_stage"`
		} `json:"current"`
		Moves []struct {
			From    *string   `json:"from_stage_id"`
			To      string    `json:"to_stage_id"`
			MovedAt time.Time `json:"moved_at"`
			MovedBy struct {
				ID   string `json:"id"`
				Type string `json:"type"`
			} `json:"moved_by"`
			Source  string `json:"source"`
			Seconds *int64 `json:"seconds_in_previous_stage"`
		} `json:"moves"`
	}
	c.Do(http.MethodGet, "/api/pipeline/"+ann.ContactID+"/history", nil, http.StatusOK).JSON(t, &history)
	m := history.Moves
	if len(m) != 3 || m[0].From != nil || m[0].To != "lead" || m[0].Source != "create" || *m[1].From != "lead" || m[1].To != "qualified" ||
		*m[2].From != "qualified" || m[2].To != "won" || m[2].Seconds == nil || *m[2].Seconds < 1 || m[2].MovedBy.ID == "" || m[2].MovedBy.Type != "api_key" {
		t.Fatalf("history %+v", history)
	}
	if history.Current.StageID != "won" {
		t.Fatalf("current %+v", history.Current)
	}
	c.Do(http.MethodDelete, "/api/contacts/"+bob.ContactID, nil, http.StatusOK)
	c.Do(http.MethodGet, "/api/pipeline/"+bob.ContactID+"/history", nil, http.StatusNotFound)
	if staged, _ := c.list("stageId=won"); len(staged) != 2 {
		t.Fatalf("stage filter %+v", staged)
	}
}
