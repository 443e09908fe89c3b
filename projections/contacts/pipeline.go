package contacts

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/errs"
)

// Pipeline is the organization's pipeline by id (404 for another's).
func Pipeline(org, id string) (domain.Pipeline, error) {
	for _, p := range domain.Pipelines(org) {
		if p.PipelineID == id {
			return p, nil
		}
	}
	return domain.Pipeline{}, errs.NotFound("pipeline")
}

// Board is a pipeline's contacts grouped by stage, in stage order.
type Board struct {
	PipelineID string       `json:"pipeline_id"`
	Name       string       `json:"name"`
	Stages     []BoardStage `json:"stages"`
}

// BoardStage is one column: how many live contacts are in the stage, and
// the Limit most recently entered.
type BoardStage struct {
	domain.Stage
	Count    int       `json:"count"`
	Contacts []Contact `json:"contacts"`
}

// Board reads the pipeline's board: per stage, its count and its newest
// arrivals (limit per stage; a stage's full list is GET
// /api/contacts?stageId=).
func (q *Queries) Board(ctx context.Context, org, pipelineID string, limit int) (Board, error) {
	p, err := Pipeline(org, pipelineID)
	if err != nil {
		return Board{}, err
	}
	if limit == 0 {
		limit = 20
	}
	board := Board{PipelineID: p.PipelineID, Name: p.Name, Stages: make([]BoardStage, len(p.Stages))}
	index := map[string]int{}
	ids := make([]string, len(p.Stages))
	for i, s := range p.Stages {
		board.Stages[i] = BoardStage{Stage: s, Contacts: []Contact{}}
		index[s.StageID], ids[i] = i, s.StageID
	}
	sql, err := q.sql(ctx, `SELECT stage_id, count(*)::int FROM {{contacts}} WHERE organization_id=$1 AND pipeline_id=$2 AND NOT deleted GROUP BY stage_id`)
	if err != nil {
		return Board{}, err
	}
	rows, err := q.pool.Query(ctx, sql, org, p.PipelineID)
	if err != nil {
		return Board{}, err
	}
	counts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (struct {
		stage string
		n     int
	}, error) {
		var x struct {
			stage string
			n     int
		}
		return x, r.Scan(&x.stage, &x.n)
	})
	if err != nil {
		return Board{}, err
	}
	for _, c := range counts {
		if i, ok := index[c.stage]; ok {
			board.Stages[i].Count = c.n
		}
	}
	sql, err = q.sql(ctx, `SELECT `+contactSelect+` FROM unnest($3::text[]) AS s(stage_id) CROSS JOIN LATERAL (
		SELECT * FROM {{contacts}} x WHERE x.organization_id=$1 AND x.pipeline_id=$2 AND x.stage_id=s.stage_id AND NOT x.deleted
		ORDER BY x.stage_entered_at DESC, x.contact_id LIMIT $4) c`)
	if err != nil {
		return Board{}, err
	}
	rows, err = q.pool.Query(ctx, sql, org, p.PipelineID, ids, limit)
	if err != nil {
		return Board{}, err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanContact(rows)
		if err != nil {
			return Board{}, err
		}
		if i, ok := index[c.StageID]; ok {
			board.Stages[i].Contacts = append(board.Stages[i].Contacts, c)
		}
	}
	return board, rows.Err()
}

// History is a contact's stage history: every move, and the stage it is in.
type History struct {
	ContactID  string       `json:"contact_id"`
	PipelineID string       `json:"pipeline_id"`
	Current    CurrentStage `json:"current"`
	Moves      []MoveView   `json:"moves"`
}

// CurrentStage is the stage a contact is in and for how long.
type CurrentStage struct {
	StageID        string    `json:"stage_id"`
	EnteredAt      time.Time `json:"entered_at"`
	SecondsInStage int64     `json:"seconds_in_stage"`
}

// MoveView is one move: from (null when the contact entered the pipeline),
// to, when, who, what made it, and how long the contact had been in the
// stage it left.
type MoveView struct {
	FromStageID            *string       `json:"from_stage_id"`
	ToStageID              string        `json:"to_stage_id"`
	MovedAt                time.Time     `json:"moved_at"`
	MovedBy                domain.Author `json:"moved_by"`
	Source                 string        `json:"source"`
	SecondsInPreviousStage *int64        `json:"seconds_in_previous_stage"`
}

// History reads a live contact's moves, oldest first.
func (q *Queries) History(ctx context.Context, org, contactID string) (History, error) {
	c, err := q.Contact(ctx, org, contactID)
	if err != nil {
		return History{}, err
	}
	sql, err := q.sql(ctx, `SELECT from_stage_id, to_stage_id, moved_at, actor_id, actor_type, source FROM {{contact_moves}}
		WHERE contact_id=$1 AND organization_id=$2 ORDER BY revision`)
	if err != nil {
		return History{}, err
	}
	rows, err := q.pool.Query(ctx, sql, c.ContactID, org)
	if err != nil {
		return History{}, err
	}
	moves, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (MoveView, error) {
		var m MoveView
		err := r.Scan(&m.FromStageID, &m.ToStageID, &m.MovedAt, &m.MovedBy.ID, &m.MovedBy.Type, &m.Source)
		utc(&m.MovedAt)
		return m, err
	})
	if err != nil {
		return History{}, err
	}
	for i := 1; i < len(moves); i++ {
		s := int64(moves[i].MovedAt.Sub(moves[i-1].MovedAt) / time.Second)
		moves[i].SecondsInPreviousStage = &s
	}
	if moves == nil {
		moves = []MoveView{}
	}
	return History{ContactID: c.ContactID, PipelineID: c.PipelineID, Moves: moves, Current: CurrentStage{StageID: c.StageID,
		EnteredAt: c.StageEnteredAt, SecondsInStage: max(0, int64(q.now().Sub(c.StageEnteredAt)/time.Second))}}, nil
}
