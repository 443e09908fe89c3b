package erasure_test

import (
	"testing"
	"time"

	"github.com/platform/backend/domain/erasure"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/event/eventtest"
)

var t0 = time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)

type erased struct {
	OrganizationID string    `json:"organization_id"`
	Objects        int       `json:"objects"`
	Files          int       `json:"files"`
	At             time.Time `json:"at"`
}

var kind = erasure.New("test.organization.data_erased", func(org string, objects, files int, at time.Time) any {
	return erased{OrganizationID: org, Objects: objects, Files: files, At: at}
})

// TestErase: an erasure needs the literal ERASE; each one is recorded in
// the context's event with its counts, even of nothing, and counted; another
// context's erasure on the stream is not.
func TestErase(t *testing.T) {
	eventtest.Given(t, kind.Load).When(func(m *erasure.Model) ([]event.Change, error) {
		return m.Erase("o1", "erase", 0, 0, t0)
	}).Then(eventtest.Invalid("/confirmation"))

	first := eventtest.Given(t, kind.Load).When(func(m *erasure.Model) ([]event.Change, error) {
		return m.Erase("o1", erasure.Confirmation, 0, 0, t0)
	}).Then(eventtest.Events(event.New("test.organization.data_erased", erased{OrganizationID: "o1", At: t0})))
	second := eventtest.GivenHistory(t, kind.Load, first.History()).When(func(m *erasure.Model) ([]event.Change, error) {
		return m.Erase("o1", erasure.Confirmation, 3, 2, t0)
	}).Then(eventtest.Events(event.New("test.organization.data_erased", erased{OrganizationID: "o1", Objects: 3, Files: 2, At: t0})))

	history := eventtest.Append(t, second.History(), []event.Change{event.New("other.organization.data_erased", erased{OrganizationID: "o1"})})
	m, err := kind.Load(history)
	if err != nil {
		t.Fatal(err)
	}
	if m.Erasures() != 2 {
		t.Fatalf("erasures %d, want 2", m.Erasures())
	}
}
