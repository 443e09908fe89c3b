package studio

import (
	"slices"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Generation request kinds: a project's creative plan (planning/generate),
// or new candidates for scenes (scenes/{sceneId}/generation/regenerate).
const (
	GenerationPlanning = "planning"
	GenerationScenes   = "scenes"
)

// Providers and overrides of a generation request (seed 002).
var (
	GenerationProviders = []string{"gateway-configured", "media-provider-1", "media-provider-2", "edge-media-provider"}
	GatewayOverrides    = []string{"ai_provider_1", "ai_provider_3", "ai_provider_4", "ai_provider_5"}
	OutputKinds         = []string{"image", "video"}
)

// DefaultGenerationProvider lets the gateway choose.
const DefaultGenerationProvider = "gateway-configured"

// Generation is one generation request. It is queued when requested; the
// job kernel runs it (provider, then fallbackProvider) and records its
// outcome as further events of its stream: running, completed (with its
// assets), failed (retries exhausted) or cancelled, the statuses of
// GenerationStatuses.
type Generation struct {
	GenerationID            string   `json:"generationId"`
	ProjectID               string   `json:"projectId"`
	WorkspaceID             string   `json:"workspaceId"`
	Kind                    string   `json:"kind"`
	SceneID                 *string  `json:"sceneId"`
	SceneIDs                []string `json:"sceneIds"`
	SceneCount              *int     `json:"sceneCount"`
	Provider                string   `json:"provider"`
	FallbackProvider        *string  `json:"fallbackProvider"`
	CandidateCount          int      `json:"candidateCount"`
	SourceAssetID           *string  `json:"sourceAssetId"`
	OutputKind              string   `json:"outputKind"`
	VideoDurationSeconds    *int     `json:"videoDurationSeconds"`
	GatewayProviderOverride *string  `json:"gatewayProviderOverride"`
	GatewayModelOverride    *string  `json:"gatewayModelOverride"`
	AssetID                 *string  `json:"assetId"`
	Status                  string   `json:"status"`
	// Attempts counts the job's attempts; AssetIDs are the generated assets
	// (candidates, in order) of a completed scene request, PlanID the plan
	// of a completed planning request; ProviderUsed the gateway provider
	// that answered last. A failed request says why (FailureCode,
	// FailureReason) and which provider it tried last (FailedProvider).
	Attempts       int      `json:"attempts"`
	AssetIDs       []string `json:"assetIds"`
	PlanID         *string  `json:"planId"`
	ProviderUsed   *string  `json:"providerUsed"`
	FailureCode    *string  `json:"failureCode"`
	FailureReason  *string  `json:"failureReason"`
	FailedProvider *string  `json:"failedProvider"`
	RequestedBy    string   `json:"requestedBy"`
	// ChargedTo is the user whose gateway spend (and user spend caps) the
	// generation's calls count against: the requester's user (a key's: the
	// user it acts as), else the requesting credential.
	ChargedTo   string     `json:"chargedTo"`
	CreatedAt   time.Time  `json:"createdAt"`
	UpdatedAt   time.Time  `json:"updatedAt"`
	CompletedAt *time.Time `json:"completedAt"`
}

// GenerationModel is the write model of one generation request stream.
type GenerationModel struct{ g Generation }

func LoadGeneration(history []event.Recorded) (*GenerationModel, error) {
	return generationFold.Load(&GenerationModel{}, history)
}

var generationFold = event.Fold[*GenerationModel]{
	GenerationRequested: event.Apply(func(m *GenerationModel, p GenerationV1) { m.g = p.Generation }),
}

func (m *GenerationModel) Exists() bool      { return m.g.GenerationID != "" }
func (m *GenerationModel) State() Generation { return m.g }

// GenerationInput is a generation request's members as a client sends them
// (seed 002's generation request).
type GenerationInput struct {
	SceneIDs                []string
	Provider                *string
	FallbackProvider        *string
	CandidateCount          *int
	SourceAssetID           *string
	OutputKind              *string
	VideoDurationSeconds    *int
	GatewayProviderOverride *string
	GatewayModelOverride    *string
	AssetID                 *string
	SceneCount              *int // planning: how many scenes to plan
}

// NewGeneration is a request to queue.
type NewGeneration struct {
	ID, ProjectID, WorkspaceID, RequestedBy, ChargedTo, Kind string
	SceneID                                                  *string // the path's scene (scenes kind)
	Input                                                    GenerationInput
	// KnownScenes are the project's scene ids (sceneIds must be among them).
	KnownScenes []string
	Quota       *QuotaClaim
}

// MaxPlanScenes bounds a planning request's sceneCount.
const MaxPlanScenes = 20

// Request queues a generation: defaults applied, members checked.
func (m *GenerationModel) Request(n NewGeneration, now time.Time) ([]event.Change, error) {
	in := n.Input
	g := Generation{GenerationID: n.ID, ProjectID: n.ProjectID, WorkspaceID: n.WorkspaceID, Kind: n.Kind, SceneID: n.SceneID,
		SceneIDs: in.SceneIDs, Provider: DefaultGenerationProvider, FallbackProvider: in.FallbackProvider, CandidateCount: 1,
		SourceAssetID: in.SourceAssetID, OutputKind: "image", VideoDurationSeconds: in.VideoDurationSeconds,
		GatewayProviderOverride: in.GatewayProviderOverride, GatewayModelOverride: in.GatewayModelOverride, AssetID: in.AssetID,
		Status: GenQueued, AssetIDs: []string{}, RequestedBy: n.RequestedBy, ChargedTo: n.ChargedTo, CreatedAt: now, UpdatedAt: now}
	if in.Provider != nil {
		g.Provider = *in.Provider
	}
	if in.CandidateCount != nil {
		g.CandidateCount = *in.CandidateCount
	}
	if in.OutputKind != nil {
		g.OutputKind = *in.OutputKind
	}
	if n.Kind == GenerationScenes && g.SceneIDs == nil && n.SceneID != nil {
		g.SceneIDs = []string{*n.SceneID}
	}
	if g.SceneIDs == nil {
		g.SceneIDs = []string{}
	}
	var f fields
	f.oneOf("/provider", g.Provider, GenerationProviders)
	if g.FallbackProvider != nil {
		f.oneOf("/fallbackProvider", *g.FallbackProvider, GenerationProviders)
		if *g.FallbackProvider == g.Provider {
			f.add("/fallbackProvider", "must differ from provider")
		}
	}
	if g.CandidateCount < MinCandidateCount || g.CandidateCount > MaxCandidateCount {
		f.add("/candidateCount", "must be %d to %d", MinCandidateCount, MaxCandidateCount)
	}
	f.oneOf("/outputKind", g.OutputKind, OutputKinds)
	if v := g.VideoDurationSeconds; v != nil {
		if *v < 1 || *v > MaxVideoSeconds {
			f.add("/videoDurationSeconds", "must be 1 to %d or null", MaxVideoSeconds)
		} else if g.OutputKind != "video" {
			f.add("/videoDurationSeconds", "only a video output has a duration")
		}
	}
	if o := g.GatewayProviderOverride; o != nil {
		f.oneOf("/gatewayProviderOverride", *o, GatewayOverrides)
	}
	if o := g.GatewayModelOverride; o != nil {
		if trim(*o) == "" {
			f.add("/gatewayModelOverride", "must be 1 to %d characters or null", MaxModelOverride)
		}
		f.line("/gatewayModelOverride", o, MaxModelOverride)
	}
	f.line("/sourceAssetId", g.SourceAssetID, MaxRef)
	f.line("/assetId", g.AssetID, MaxRef)
	if n.Kind == GenerationScenes {
		if len(g.SceneIDs) == 0 {
			f.add("/sceneIds", "at least one scene")
		}
		for i, id := range g.SceneIDs {
			if !slices.Contains(n.KnownScenes, id) {
				f.add("/sceneIds/"+itoa(i), "is not a scene of the project")
			}
		}
	}
	if n.Kind == GenerationPlanning {
		count := 5
		if in.SceneCount != nil {
			count = *in.SceneCount
		}
		if count < 1 || count > MaxPlanScenes {
			f.add("/sceneCount", "must be 1 to %d", MaxPlanScenes)
		}
		g.SceneCount = &count
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if m.Exists() {
		return nil, errs.Conflict("generation_exists", "the generation request already exists")
	}
	return []event.Change{event.New(GenerationRequested, GenerationV1{Generation: g, Quota: n.Quota})}, nil
}
