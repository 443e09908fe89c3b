package status

import (
	"fmt"

	"github.com/platform/backend/domain/text"
)

// AutoIncidentSeverity is the severity of an incident a degraded component
// opens by itself: a whole surface failing its checks is more than minor,
// and only a person knows whether it is critical.
const AutoIncidentSeverity = "major"

// AutoIncident is the incident a component with autoIncident opens when it
// degrades (p is the degraded event's payload). Its texts stay within the
// bounds a person's incident has: a long component name is shortened.
func AutoIncident(p ComponentCheckedV1) NewIncident {
	const suffix = " is degraded"
	host, name := p.Host, p.Name
	return NewIncident{
		Title:    truncate(p.Name, text.MaxTitle-len([]rune(suffix))) + suffix,
		Message:  fmt.Sprintf("%s failed %d consecutive checks (%s). This incident was opened automatically.", p.Host, p.ConsecutiveFails, checkOutcome(p)),
		Severity: AutoIncidentSeverity, ComponentHost: &host, ComponentName: &name,
	}
}

// AutoResolution is the final update that resolves a component's automatic
// incident when it recovers (p is the recovered event's payload).
func AutoResolution(p ComponentCheckedV1) IncidentUpdate {
	return IncidentUpdate{Status: Resolved,
		Message: fmt.Sprintf("%s answers again (%s). This incident was resolved automatically.", p.Host, checkOutcome(p))}
}

// checkOutcome says what a check saw: the HTTP status, or the outbound
// client's reason word (never raw error text).
func checkOutcome(p ComponentCheckedV1) string {
	if p.Error != "" {
		return p.Error
	}
	return fmt.Sprintf("HTTP %d", p.HTTPStatus)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
