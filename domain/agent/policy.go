package agent

import (
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Cross-organization actions (seed 002, authentication 5) must enter
// through the cross-organization network service and wait for its policy
// decision. The platform has no such service, so no decision can allow
// one: every cross-organization action is refused, and the refusal is
// recorded on the acting organization's policy stream (the audit trail an
// operator of a future network service would read).

// PolicyService is the service whose decision a cross-organization action
// needs.
const PolicyService = "cross_organization_network"

// CrossOrgRefusedV1 is a cross-organization action refused.
type CrossOrgRefusedV1 struct {
	// Subject says what asked: "flow.create", "flow.update".
	Subject              string    `json:"subject"`
	FlowID               string    `json:"flow_id,omitempty"`
	Step                 int       `json:"step"`
	Action               string    `json:"action"`
	TargetOrganizationID string    `json:"target_organization_id"`
	By                   Actor     `json:"by"`
	Reason               string    `json:"reason"`
	At                   time.Time `json:"at"`
}

// RefusalReason is why every cross-organization action is refused.
const RefusalReason = "no policy decision allows it: the cross-organization network service is not available"

// Refusal is one cross-organization action to refuse.
type Refusal struct {
	Subject              string
	FlowID               string
	Step                 int
	Action               string
	TargetOrganizationID string
	By                   Actor
}

// RecordRefusals are the events that record the refusals.
func RecordRefusals(refusals []Refusal, now time.Time) []event.Change {
	out := make([]event.Change, len(refusals))
	for i, r := range refusals {
		out[i] = event.New(CrossOrgRefused, CrossOrgRefusedV1{Subject: r.Subject, FlowID: r.FlowID, Step: r.Step, Action: r.Action,
			TargetOrganizationID: r.TargetOrganizationID, By: r.By, Reason: RefusalReason, At: now})
	}
	return out
}

// CrossOrganizationRefused is the error a refused action answers (403).
func CrossOrganizationRefused(pointer string) *errs.Error {
	e := Denied("cross_organization_refused", "a step acting in another organization needs a policy decision of the "+
		"cross-organization network service, and none allows it (no such service is available); the refusal was recorded")
	e.Fields = []errs.Field{{Pointer: pointer, Detail: "another organization than the flow's"}}
	return e
}
