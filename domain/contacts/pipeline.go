package contacts

import (
	"strings"

	"github.com/google/uuid"
)

// Stage is one step of a pipeline, in order.
type Stage struct {
	StageID  string `json:"stage_id"`
	Name     string `json:"name"`
	Position int    `json:"position"`
}

// Pipeline is an ordered list of stages that contacts move through.
type Pipeline struct {
	PipelineID string  `json:"pipeline_id"`
	Name       string  `json:"name"`
	IsDefault  bool    `json:"is_default"`
	Stages     []Stage `json:"stages"`
}

// defaultStages are the default pipeline's stages (seed 002 names none).
var defaultStages = []Stage{
	{StageID: "lead", Name: "Lead"},
	{StageID: "contacted", Name: "Contacted"},
	{StageID: "qualified", Name: "Qualified"},
	{StageID: "proposal", Name: "Proposal"},
	{StageID: "won", Name: "Won"},
	{StageID: "lost", Name: "Lost"},
}

// pipelineNamespace makes pipeline ids: name-based UUIDs of the
// organization, so every organization has its own default pipeline id and
// another organization's id is simply unknown.
var pipelineNamespace = uuid.MustParse("6f1c1d0e-7a53-4c1b-9d7e-2b8f0c7a9e11")

// DefaultPipeline is the organization's default pipeline. It is defined
// here rather than created by an event: every organization has it from the
// start, and nothing changes it (there is no route that would).
func DefaultPipeline(organizationID string) Pipeline {
	stages := make([]Stage, len(defaultStages))
	for i, s := range defaultStages {
		s.Position = i + 1
		stages[i] = s
	}
	return Pipeline{PipelineID: uuid.NewSHA1(pipelineNamespace, []byte("default:"+organizationID)).String(),
		Name: "Sales", IsDefault: true, Stages: stages}
}

// Pipelines are the organization's pipelines.
func Pipelines(organizationID string) []Pipeline { return []Pipeline{DefaultPipeline(organizationID)} }

// First is the stage new contacts enter.
func (p Pipeline) First() Stage { return p.Stages[0] }

// StageByID finds a stage by its id.
func (p Pipeline) StageByID(id string) (Stage, bool) {
	for _, s := range p.Stages {
		if s.StageID == id {
			return s, true
		}
	}
	return Stage{}, false
}

// StageNamed finds a stage by its id or its name, case-insensitively (an
// import file's stage column may hold either).
func (p Pipeline) StageNamed(s string) (Stage, bool) {
	s = strings.TrimSpace(s)
	for _, st := range p.Stages {
		if strings.EqualFold(st.StageID, s) || strings.EqualFold(st.Name, s) {
			return st, true
		}
	}
	return Stage{}, false
}
