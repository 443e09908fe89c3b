package studio

import "github.com/platform/backend/commands/workspace"

// Object kinds of the registry (studio_objects).
const (
	KindProject     = "project"
	KindComposition = "composition"
	KindRenderJob   = "render_job"
	KindGeneration  = "generation"
	KindAsset       = "asset"
	KindTemplate    = "template"
	KindPreset      = "preset"
	KindWarning     = "quota_warning"
)

// registry is the studio's register of its objects (studio_objects,
// commands/workspace). The studio deletes workspaces: every command holds
// its organization's and its workspace's lock shared; an erasure takes the
// organization's, a workspace deletion the workspace's, exclusively: they
// wait for the commands in flight, and the commands after them see what
// they did (a deleted workspace is missing).
var registry = &workspace.Registry{Context: "studio", WorkspaceLocks: true, Names: map[string]string{KindProject: "project",
	KindComposition: "composition version", KindRenderJob: "render job", KindGeneration: "generation request", KindAsset: "asset",
	KindTemplate: "project template", KindPreset: "preset", KindWarning: "quota warning"}}

// guard and object are the workspace kernel's (commands/workspace) in this
// context's words; meta is a command's meta in the caller's organization.
type (
	guard            = workspace.Guard
	object[M, T any] = workspace.Object[M, T]
)

var meta = workspace.Meta
