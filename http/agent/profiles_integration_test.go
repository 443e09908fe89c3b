package agent_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/platform/backend/internal/apptest"
)

type profileOut struct {
	ProfileID     string `json:"profileId"`
	SubjectUserID string `json:"subjectUserId"`
	DisplayName   string `json:"displayName"`
	Sources       int    `json:"sources"`
	StyleSnapshot *struct {
		SnapshotID string `json:"snapshotId"`
		Summary    string `json:"summary"`
	} `json:"styleSnapshot"`
}

// TestPersonProfiles: a member makes a profile of themself; the member
// and the organization's admins see and change it, another member does not
// (404, like a missing one), nor another organization; sources and a style
// snapshot are added; a preview drafts from the profile's own sources
// through the gateway and cites them; a topic no source covers drafts
// nothing (409 no_sources).
func TestPersonProfiles(t *testing.T) {
	h := apptest.Start(t, apptest.Options{})
	alice := newPerson(t, h, h.OrgID, "member")
	bob := newPerson(t, h, h.OrgID, "member")
	admin := newPerson(t, h, h.OrgID, "admin")
	_, otherKey := h.NewOrganization(t, "Other", "other-profiles", apptest.DefaultScopes...)

	var p profileOut
	call(t, h, http.MethodPost, "/api/person-profiles", alice.Session, map[string]any{"displayName": "Alice", "headline": "Founder"},
		http.StatusCreated, &p)
	if p.SubjectUserID != alice.UserID || p.DisplayName != "Alice" {
		t.Fatalf("profile %+v", p)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/person-profiles", alice.Key, map[string]any{"displayName": "Alice again"}),
		http.StatusConflict, "profile_exists")
	// Bob may not make Alice's profile, nor see hers.
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/person-profiles", bob.Session,
		map[string]any{"displayName": "Not me", "subjectUserId": alice.UserID}), http.StatusForbidden, "permission_denied")
	for _, path := range []string{"", "/sources", "/style-snapshots"} {
		apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/person-profiles/"+p.ProfileID+path, bob.Session, nil),
			http.StatusNotFound, "not_found")
		apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/person-profiles/"+p.ProfileID+path, otherKey, nil),
			http.StatusNotFound, "not_found")
		call(t, h, http.MethodGet, "/api/person-profiles/"+p.ProfileID+path, admin.Session, nil, http.StatusOK, nil)
		call(t, h, http.MethodGet, "/api/person-profiles/"+p.ProfileID+path, alice.Key, nil, http.StatusOK, nil)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPatch, "/api/person-profiles/"+p.ProfileID, bob.Key, map[string]any{"headline": "x"}),
		http.StatusNotFound, "not_found")
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/preview", bob.Key,
		map[string]any{"topic": "pricing"}), http.StatusNotFound, "not_found")
	call(t, h, http.MethodPatch, "/api/person-profiles/"+p.ProfileID, admin.Key, map[string]any{"headline": "Founder and CEO"}, http.StatusOK, nil)

	// Lists: Bob sees none, Alice hers, the admin every one.
	var l struct {
		Profiles []struct{ ProfileID string } `json:"profiles"`
	}
	apptest.Eventually(t, 15*time.Second, "the profile listed", func() bool {
		call(t, h, http.MethodGet, "/api/person-profiles", admin.Session, nil, http.StatusOK, &l)
		return len(l.Profiles) == 1
	})
	call(t, h, http.MethodGet, "/api/person-profiles", bob.Session, nil, http.StatusOK, &l)
	if len(l.Profiles) != 0 {
		t.Fatalf("bob sees %d profiles", len(l.Profiles))
	}

	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/style-snapshots", alice.Key, map[string]any{}),
		http.StatusConflict, "no_sources")
	for _, s := range []map[string]any{
		{"kind": "post", "title": "Why we price per seat", "url": "https://alice.example/pricing",
			"content": "We price per seat because it's fair! Teams grow, and so should the bill. Don't you agree?"},
		{"kind": "article", "title": "Hiring", "content": "Hiring slowly keeps the culture. We hire for judgment over speed."},
	} {
		call(t, h, http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/sources", alice.Session, s, http.StatusCreated, &p)
	}
	call(t, h, http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/style-snapshots", alice.Session, map[string]any{}, http.StatusCreated, &p)
	if p.Sources != 2 || p.StyleSnapshot == nil || p.StyleSnapshot.Summary == "" {
		t.Fatalf("profile after sources and a snapshot: %+v", p)
	}
	var preview struct {
		Draft           string  `json:"draft"`
		StyleSnapshotID *string `json:"styleSnapshotId"`
		Sources         []struct {
			SourceID string `json:"sourceId"`
			Title    string `json:"title"`
			URL      string `json:"url"`
		} `json:"sources"`
	}
	apptest.Eventually(t, 15*time.Second, "the sources searchable", func() bool {
		res := h.Do(t, "agent", http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/preview", alice.Key, map[string]any{"topic": "seat pricing"})
		if res.Status != http.StatusOK {
			return false
		}
		res.JSON(t, &preview)
		return true
	})
	if preview.Draft == "" || len(preview.Sources) != 1 || preview.Sources[0].Title != "Why we price per seat" ||
		preview.StyleSnapshotID == nil || *preview.StyleSnapshotID != p.StyleSnapshot.SnapshotID {
		t.Fatalf("preview %+v", preview)
	}
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodPost, "/api/person-profiles/"+p.ProfileID+"/preview", alice.Key,
		map[string]any{"topic": "quantum chromodynamics"}), http.StatusConflict, "no_sources")

	// Deleting frees the person for a new profile.
	call(t, h, http.MethodDelete, "/api/person-profiles/"+p.ProfileID, alice.Key, nil, http.StatusOK, nil)
	apptest.ExpectProblem(t, h.Do(t, "agent", http.MethodGet, "/api/person-profiles/"+p.ProfileID, alice.Key, nil), http.StatusNotFound, "not_found")
	call(t, h, http.MethodPost, "/api/person-profiles", alice.Key, map[string]any{"displayName": "Alice"}, http.StatusCreated, nil)
}
