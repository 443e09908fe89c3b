package publishing

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/platform/backend/domain/event"
)

// snapshotOf is a stream head's record: what the commands save as the
// snapshot, encoded as the event store keeps it.
func snapshotOf(t *testing.T, v any, version int64) event.Recorded {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return event.Recorded{Type: event.SnapshotType, SchemaVersion: SnapshotSchema, Version: version, Payload: raw}
}

// A post loaded from its snapshot (the commands' answer) and the events
// after it equals the post folded from its whole history.
func TestPostLoadsFromItsSnapshot(t *testing.T) {
	p := &Post{}
	var history []event.Recorded
	step := func(c []event.Change, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if history, err = event.Append(history, c); err != nil {
			t.Fatal(err)
		}
		if p, err = LoadPost(history); err != nil {
			t.Fatal(err)
		}
	}
	step(p.Create(NewPost{ID: "p1", BrandID: "b1", AuthorID: "u1", Draft: Draft{Items: []Item{{Text: "hello"}},
		Targets: []TargetSpec{{Network: "network_1", AccountID: ptr("acc")}}, PublishAt: ptr(now.Add(time.Hour)), Schedule: true}}, now))
	snap := snapshotOf(t, p.State(), int64(len(history)))
	step(p.Reschedule(now.Add(2*time.Hour), now))
	whole, err := LoadPost(history)
	if err != nil {
		t.Fatal(err)
	}
	fromSnap, err := LoadPost(append([]event.Recorded{snap}, history[snap.Version:]...))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(whole.State(), fromSnap.State()) {
		t.Fatalf("from the snapshot %+v, whole %+v", fromSnap.State(), whole.State())
	}
	alone, err := LoadPost([]event.Recorded{snapshotOf(t, whole.State(), int64(len(history)))})
	if err != nil || !reflect.DeepEqual(alone.State(), whole.State()) {
		t.Fatalf("the snapshot alone: %+v %v", alone, err)
	}
}

// A brand's snapshot keeps its home organization, which its answer leaves
// out for clients.
func TestBrandLoadsFromItsSnapshot(t *testing.T) {
	b := &Brand{}
	changes, err := b.Create("b1", "Brand", "org-home", "u1", now)
	if err != nil {
		t.Fatal(err)
	}
	history, err := event.Append(nil, changes)
	if err != nil {
		t.Fatal(err)
	}
	if changes, err = b.Transfer("org-other", now); err != nil {
		t.Fatal(err)
	}
	if history, err = event.Append(history, changes); err != nil {
		t.Fatal(err)
	}
	whole, err := LoadBrand(history)
	if err != nil {
		t.Fatal(err)
	}
	answer := whole.State()
	if raw, _ := json.Marshal(answer); containsHome(raw) {
		t.Fatalf("the answer names the home organization: %s", raw)
	}
	loaded, err := LoadBrand([]event.Recorded{snapshotOf(t, BrandSnapshot(answer), int64(len(history)))})
	if err != nil {
		t.Fatal(err)
	}
	if loaded.HomeOrganizationID != "org-home" || loaded.OrganizationID != "org-other" || !reflect.DeepEqual(loaded.State(), answer) {
		t.Fatalf("from the snapshot: %+v (home %q), want %+v", loaded.State(), loaded.HomeOrganizationID, answer)
	}
}

func containsHome(raw []byte) bool {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	_, ok := m["home_organization_id"]
	return ok
}
