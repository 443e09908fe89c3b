// Package invariants holds the tests every module answers to, however many
// there are: seed 000's descriptor rules, permissions declared in the
// catalog, real output schemas, OpenAPI documents that tell the truth,
// every event type handled or explicitly ignored by every projection and
// mapper, input schemas that match the Go inputs. A new module is checked
// by them the moment it is listed in internal/modules.
package invariants
