package contacts

import httpapi "github.com/platform/backend/http"

// APIInfo is GET /api: seed 002's API metadata of the contacts API.
type APIInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Version is the API description's version (seed 002: 1.0.0).
	Version        string      `json:"version"`
	Authentication string      `json:"authentication"`
	Health         string      `json:"health"`
	OpenAPI        string      `json:"openapi"`
	Actions        string      `json:"actions"`
	Routes         []RouteInfo `json:"routes"`
}

// RouteInfo is one route of the API.
type RouteInfo struct {
	Method  string `json:"method"`
	Path    string `json:"path"`
	Action  string `json:"action"`
	Summary string `json:"summary"`
}

// Version is the contacts API description's version (seed 002).
const Version = "1.0.0"

func apiInfo(actions []httpapi.Action) APIInfo {
	routes := make([]RouteInfo, 0, len(actions))
	for _, a := range actions {
		routes = append(routes, RouteInfo{Method: a.Method, Path: a.Path, Action: a.Name, Summary: a.Summary})
	}
	return APIInfo{Name: "contacts", Version: Version,
		Description:    "Contact records, notes, attachments, sales pipelines, CSV import and export",
		Authentication: "Authorization: Bearer <token> or X-Api-Key on every route but /health and /api (scopes contacts:read, contacts:write)",
		Health:         "/health", OpenAPI: "/api/openapi.json", Actions: "/api/actions", Routes: routes}
}
