package studio

import (
	"context"
	"slices"
	"time"

	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/studio"
	httpapi "github.com/platform/backend/http"
	studioview "github.com/platform/backend/projections/studio"
)

// The query routes: each enters the workspace (the caller's binding and
// permission there), then reads the read model.

// WorkspaceQuery names a workspace.
type WorkspaceQuery struct {
	WorkspaceSlug string `json:"workspaceSlug"`
}

// ProjectQuery names a project of a workspace.
type ProjectQuery struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
}

func (d Deps) scope(ctx context.Context, p principal.Principal, slug, permission string) (studioview.Scope, studiocmd.Workspace, error) {
	ws, err := d.Commands.Enter(ctx, p, slug, permission)
	return studioview.Scope{Organization: p.OrganizationID, Workspace: ws.ID}, ws, err
}

// ListProjects is projects.list's input.
type ListProjects struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	Limit         int    `json:"limit"`
	Cursor        string `json:"cursor"`
}

func (d Deps) projects(ctx context.Context, p principal.Principal, in ListProjects) (studioview.ProjectPage, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return studioview.ProjectPage{}, err
	}
	return d.Queries.Projects(ctx, s, studioview.Page{Limit: in.Limit, Cursor: in.Cursor})
}

func (d Deps) project(ctx context.Context, p principal.Principal, in ProjectQuery) (domain.Project, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return domain.Project{}, err
	}
	return d.Queries.Project(ctx, s, in.ProjectID)
}

// BriefView is a project's structured brief.
type BriefView struct {
	ProjectID string       `json:"projectId"`
	Brief     domain.Brief `json:"brief"`
}

func (d Deps) brief(ctx context.Context, p principal.Principal, in ProjectQuery) (BriefView, error) {
	pr, err := d.project(ctx, p, in)
	return BriefView{ProjectID: pr.ProjectID, Brief: pr.Brief}, err
}

func (d Deps) scenes(ctx context.Context, p principal.Principal, in ProjectQuery) (studiocmd.SceneList, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return studiocmd.SceneList{}, err
	}
	if _, err := d.Queries.Project(ctx, s, in.ProjectID); err != nil {
		return studiocmd.SceneList{}, err
	}
	list, err := d.Queries.Scenes(ctx, s, in.ProjectID)
	return studiocmd.SceneList{ProjectID: in.ProjectID, Scenes: list}, err
}

// ApprovalList is projects.approvals.list's answer.
type ApprovalList struct {
	Approvals []domain.Approval `json:"approvals"`
}

func (d Deps) approvals(ctx context.Context, p principal.Principal, in ProjectQuery) (ApprovalList, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return ApprovalList{}, err
	}
	if _, err := d.Queries.Project(ctx, s, in.ProjectID); err != nil {
		return ApprovalList{}, err
	}
	list, err := d.Queries.Approvals(ctx, s, in.ProjectID)
	return ApprovalList{Approvals: list}, err
}

// CompositionList is projects.compositions.list's answer.
type CompositionList struct {
	Compositions []domain.Composition `json:"compositions"`
}

func (d Deps) compositions(ctx context.Context, p principal.Principal, in ProjectQuery) (CompositionList, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return CompositionList{}, err
	}
	if _, err := d.Queries.Project(ctx, s, in.ProjectID); err != nil {
		return CompositionList{}, err
	}
	list, err := d.Queries.Compositions(ctx, s, in.ProjectID)
	return CompositionList{Compositions: list}, err
}

// CompositionQuery names a composition version.
type CompositionQuery struct {
	WorkspaceSlug        string `json:"workspaceSlug"`
	ProjectID            string `json:"projectId"`
	CompositionVersionID string `json:"compositionVersionId"`
}

func (d Deps) composition(ctx context.Context, p principal.Principal, in CompositionQuery) (domain.Composition, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return domain.Composition{}, err
	}
	if _, err := d.Queries.Project(ctx, s, in.ProjectID); err != nil {
		return domain.Composition{}, err
	}
	return d.Queries.Composition(ctx, s, in.ProjectID, in.CompositionVersionID)
}

// RenderJobsQuery is projects.render_jobs.list's input.
type RenderJobsQuery struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	RenderStatus  string `json:"renderStatus"`
}

// RenderJobList is its answer.
type RenderJobList struct {
	RenderJobs []domain.RenderJob `json:"renderJobs"`
}

func (d Deps) renderJobs(ctx context.Context, p principal.Principal, in RenderJobsQuery) (RenderJobList, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermExportsRead)
	if err != nil {
		return RenderJobList{}, err
	}
	if _, err := d.Queries.Project(ctx, s, in.ProjectID); err != nil {
		return RenderJobList{}, err
	}
	list, err := d.Queries.RenderJobs(ctx, s, in.ProjectID, in.RenderStatus)
	return RenderJobList{RenderJobs: list}, err
}

// RenderJobQuery names a render job.
type RenderJobQuery struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	RenderJobID   string `json:"renderJobId"`
}

func (d Deps) renderJob(ctx context.Context, p principal.Principal, in RenderJobQuery) (domain.RenderJob, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermExportsRead)
	if err != nil {
		return domain.RenderJob{}, err
	}
	if _, err := d.Queries.Project(ctx, s, in.ProjectID); err != nil {
		return domain.RenderJob{}, err
	}
	return d.Queries.RenderJob(ctx, s, in.ProjectID, in.RenderJobID)
}

// Planning is projects.planning.get's answer.
type Planning struct {
	ProjectID string `json:"projectId"`
	// Status: none (never planned), generating (a request queued or
	// running), ready (a plan persisted), failed (the latest request failed).
	Status           string             `json:"status"`
	PlanID           *string            `json:"planId"`
	Scenes           []domain.Scene     `json:"scenes"`
	LatestGeneration *domain.Generation `json:"latestGeneration"`
}

func (d Deps) planning(ctx context.Context, p principal.Principal, in ProjectQuery) (Planning, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return Planning{}, err
	}
	pr, err := d.Queries.Project(ctx, s, in.ProjectID)
	if err != nil {
		return Planning{}, err
	}
	scenes, err := d.Queries.Scenes(ctx, s, in.ProjectID)
	if err != nil {
		return Planning{}, err
	}
	gens, err := d.Queries.Generations(ctx, s, in.ProjectID, domain.GenerationPlanning, 1)
	if err != nil {
		return Planning{}, err
	}
	out := Planning{ProjectID: pr.ProjectID, Status: "none", PlanID: pr.PlanID, Scenes: scenes}
	if pr.PlanID != nil {
		out.Status = "ready"
	}
	if len(gens) > 0 {
		out.LatestGeneration = &gens[0]
		switch gens[0].Status {
		case domain.GenPending, domain.GenQueued, domain.GenRunning:
			out.Status = "generating"
		case domain.GenFailed:
			out.Status = "failed"
		}
	}
	return out, nil
}

// Sync is projects.sync.get's answer: what a desktop client compares with
// what it holds.
type Sync struct {
	Project           domain.Project      `json:"project"`
	Scenes            []domain.Scene      `json:"scenes"`
	LatestComposition *domain.Composition `json:"latestComposition"`
	// Generations are the project's latest scene generation requests
	// (newest first, at most 20), with their status, attempts and the
	// assets they made: how a client follows a regeneration.
	Generations []domain.Generation `json:"generations"`
	Counts      studioview.Counts   `json:"counts"`
	SyncedAt    time.Time           `json:"syncedAt"`
}

// syncGenerations bounds Sync.Generations.
const syncGenerations = 20

func (d Deps) sync(ctx context.Context, p principal.Principal, in ProjectQuery) (Sync, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return Sync{}, err
	}
	pr, err := d.Queries.Project(ctx, s, in.ProjectID)
	if err != nil {
		return Sync{}, err
	}
	out := Sync{Project: pr, SyncedAt: d.Now().UTC()}
	if out.Scenes, err = d.Queries.Scenes(ctx, s, in.ProjectID); err != nil {
		return Sync{}, err
	}
	comps, err := d.Queries.Compositions(ctx, s, in.ProjectID)
	if err != nil {
		return Sync{}, err
	}
	if len(comps) > 0 {
		out.LatestComposition = &comps[0]
	}
	if out.Generations, err = d.Queries.Generations(ctx, s, in.ProjectID, domain.GenerationScenes, syncGenerations); err != nil {
		return Sync{}, err
	}
	out.Counts, err = d.Queries.Counts(ctx, s, in.ProjectID)
	return out, err
}

// AssetView is an asset with a signed preview link.
type AssetView struct {
	domain.Asset
	PreviewURL       string    `json:"previewUrl"`
	PreviewExpiresAt time.Time `json:"previewExpiresAt"`
}

// AssetPage is assets.list's answer.
type AssetPage struct {
	Assets     []AssetView `json:"assets"`
	NextCursor *string     `json:"nextCursor"`
}

func (d Deps) view(ws studiocmd.Workspace, a domain.Asset) AssetView {
	pv := d.Commands.PreviewOf(a.AssetID, ws.ID)
	return AssetView{Asset: a, PreviewURL: PreviewPath(ws.Slug, a.AssetID, pv), PreviewExpiresAt: pv.ExpiresAt}
}

// AssetsQuery is assets.list's input.
type AssetsQuery struct {
	WorkspaceSlug string `json:"workspaceSlug"`
	ProjectID     string `json:"projectId"`
	Kind          string `json:"kind"`
	Limit         int    `json:"limit"`
	Cursor        string `json:"cursor"`
}

func (d Deps) assets(ctx context.Context, p principal.Principal, in AssetsQuery) (AssetPage, error) {
	s, ws, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return AssetPage{}, err
	}
	page, err := d.Queries.Assets(ctx, s, studioview.AssetFilter{ProjectID: in.ProjectID, Kind: in.Kind,
		Page: studioview.Page{Limit: in.Limit, Cursor: in.Cursor}})
	if err != nil {
		return AssetPage{}, err
	}
	out := AssetPage{Assets: make([]AssetView, len(page.Assets)), NextCursor: page.NextCursor}
	for i, a := range page.Assets {
		out.Assets[i] = d.view(ws, a)
	}
	return out, nil
}

func (d Deps) asset(ctx context.Context, p principal.Principal, in studiocmd.AssetRef) (AssetView, error) {
	s, ws, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return AssetView{}, err
	}
	a, err := d.Queries.Asset(ctx, s, in.AssetID)
	if err != nil {
		return AssetView{}, err
	}
	return d.view(ws, a), nil
}

// TemplateList is project_templates.list's answer.
type TemplateList struct {
	Templates []domain.Template `json:"templates"`
}

func (d Deps) templates(ctx context.Context, p principal.Principal, in WorkspaceQuery) (TemplateList, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return TemplateList{}, err
	}
	list, err := d.Queries.Templates(ctx, s)
	return TemplateList{Templates: list}, err
}

// PresetList is presets.list's answer.
type PresetList struct {
	Presets []domain.Preset `json:"presets"`
}

func (d Deps) presets(ctx context.Context, p principal.Principal, in WorkspaceQuery) (PresetList, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return PresetList{}, err
	}
	list, err := d.Queries.Presets(ctx, s)
	return PresetList{Presets: list}, err
}

// QuotaView is workspace.quota.get's answer: this month's counts and
// limits of the quota'd actions (zero when none was counted yet).
type QuotaView struct {
	PeriodKey string                `json:"periodKey"`
	ResetsAt  time.Time             `json:"resetsAt"`
	Actions   []studioview.QuotaUse `json:"actions"`
}

func (d Deps) quotaOf(ctx context.Context, s studioview.Scope) (QuotaView, error) {
	now := d.Now().UTC()
	period := domain.PeriodKey(now)
	counted, err := d.Queries.Quota(ctx, s, period)
	if err != nil {
		return QuotaView{}, err
	}
	cfg := d.Commands.Config()
	out := QuotaView{PeriodKey: period, ResetsAt: domain.PeriodEnd(now), Actions: []studioview.QuotaUse{}}
	for _, a := range []struct {
		action string
		limit  int
	}{{domain.QuotaGenerations, cfg.GenerationQuota}, {domain.QuotaRenders, cfg.RenderQuota}} {
		use := studioview.QuotaUse{Action: a.action, PeriodKey: period, Limit: a.limit}
		if i := slices.IndexFunc(counted, func(u studioview.QuotaUse) bool { return u.Action == a.action }); i >= 0 {
			use = counted[i]
			use.Limit = a.limit
		}
		out.Actions = append(out.Actions, use)
	}
	return out, nil
}

func (d Deps) quota(ctx context.Context, p principal.Principal, in WorkspaceQuery) (QuotaView, error) {
	s, _, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return QuotaView{}, err
	}
	return d.quotaOf(ctx, s)
}

// CreativeResources is workspace.creative_resources.list's answer.
type CreativeResources struct {
	Templates  []domain.Template `json:"templates"`
	Presets    []domain.Preset   `json:"presets"`
	BrandFonts []AssetView       `json:"brandFonts"`
}

func (d Deps) creativeResources(ctx context.Context, p principal.Principal, in WorkspaceQuery) (CreativeResources, error) {
	s, ws, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return CreativeResources{}, err
	}
	var out CreativeResources
	if out.Templates, err = d.Queries.Templates(ctx, s); err != nil {
		return CreativeResources{}, err
	}
	if out.Presets, err = d.Queries.Presets(ctx, s); err != nil {
		return CreativeResources{}, err
	}
	fonts, err := d.Queries.Assets(ctx, s, studioview.AssetFilter{Kind: domain.AssetFont, Page: studioview.Page{Limit: 200}})
	if err != nil {
		return CreativeResources{}, err
	}
	out.BrandFonts = make([]AssetView, len(fonts.Assets))
	for i, a := range fonts.Assets {
		out.BrandFonts[i] = d.view(ws, a)
	}
	return out, nil
}

// SettingsStatus is settings.status.get's answer.
type SettingsStatus struct {
	Workspace       studiocmd.WorkspaceView `json:"workspace"`
	Quota           QuotaView               `json:"quota"`
	RenderFormats   []string                `json:"renderFormats"`
	RenderProviders []string                `json:"renderProviders"`
	AssetMaxBytes   int64                   `json:"assetMaxBytes"`
	AssetTypes      []string                `json:"assetTypes"`
	Counts          studioview.Counts       `json:"counts"`
}

func (d Deps) settingsStatus(ctx context.Context, p principal.Principal, in WorkspaceQuery) (SettingsStatus, error) {
	s, ws, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermWorkspaceRead)
	if err != nil {
		return SettingsStatus{}, err
	}
	q, err := d.quotaOf(ctx, s)
	if err != nil {
		return SettingsStatus{}, err
	}
	counts, err := d.Queries.Counts(ctx, s, "")
	if err != nil {
		return SettingsStatus{}, err
	}
	types := make([]string, 0, len(domain.AssetTypes))
	for t := range domain.AssetTypes {
		types = append(types, t)
	}
	slices.Sort(types)
	return SettingsStatus{Workspace: studiocmd.Views([]studiocmd.Workspace{ws})[0], Quota: q, RenderFormats: domain.OutputFormats,
		RenderProviders: []string{domain.DefaultRenderProvider}, AssetMaxBytes: d.Commands.Config().AssetMaxBytes, AssetTypes: types,
		Counts: counts}, nil
}

// ModelOptions is generation.model_options.list's answer: seed 002's
// generation request choices and their bounds.
type ModelOptions struct {
	Providers                []string `json:"providers"`
	DefaultProvider          string   `json:"defaultProvider"`
	GatewayProviderOverrides []string `json:"gatewayProviderOverrides"`
	GatewayModelMaxLength    int      `json:"gatewayModelMaxLength"`
	OutputKinds              []string `json:"outputKinds"`
	CandidateCount           Bounds   `json:"candidateCount"`
	VideoDurationSeconds     Bounds   `json:"videoDurationSeconds"`
	// OverridesNeedAdmin: only a workspace admin may override the gateway's
	// provider or model (whether this caller may is canOverride).
	OverridesNeedAdmin bool `json:"overridesNeedAdmin"`
	CanOverride        bool `json:"canOverride"`
}

// Bounds are an integer member's range.
type Bounds struct {
	Min int `json:"min"`
	Max int `json:"max"`
}

func (d Deps) modelOptions(ctx context.Context, p principal.Principal, in WorkspaceQuery) (ModelOptions, error) {
	_, ws, err := d.scope(ctx, p, in.WorkspaceSlug, studiocmd.PermGenerationWrite)
	if err != nil {
		return ModelOptions{}, err
	}
	return ModelOptions{Providers: domain.GenerationProviders, DefaultProvider: domain.DefaultGenerationProvider,
		GatewayProviderOverrides: domain.GatewayOverrides, GatewayModelMaxLength: domain.MaxModelOverride, OutputKinds: domain.OutputKinds,
		CandidateCount: Bounds{domain.MinCandidateCount, domain.MaxCandidateCount}, VideoDurationSeconds: Bounds{1, domain.MaxVideoSeconds},
		OverridesNeedAdmin: true, CanOverride: studiocmd.WorkspaceAdmin(p, ws.ID)}, nil
}

func (d Deps) export(ctx context.Context, p principal.Principal, _ httpapi.NoInput) (studioview.Export, error) {
	if err := studiocmd.AuthorizePrivacy(p); err != nil {
		return studioview.Export{}, err
	}
	return d.Queries.Export(ctx, p.OrganizationID, d.Now().UTC())
}
