package agent

import (
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Bounds of a person profile.
const (
	MaxSources       = 200
	MaxSourceContent = 20000
	MaxHeadline      = 300
)

// Source kinds: what a person wrote or said that a profile learns from.
var SourceKinds = []string{"post", "email", "article", "transcript", "note"}

// UniqueProfileSubject claims one profile per person and organization.
const UniqueProfileSubject = "agent_profile_subject"

// ProfileV1 is a profile created or changed.
type ProfileV1 struct {
	ProfileID     string    `json:"profile_id"`
	SubjectUserID string    `json:"subject_user_id"`
	DisplayName   string    `json:"display_name"`
	Headline      string    `json:"headline"`
	At            time.Time `json:"at"`
}

// ProfileDeletedV1 is a profile deleted with its sources and snapshots.
type ProfileDeletedV1 struct {
	ProfileID string    `json:"profile_id"`
	At        time.Time `json:"at"`
}

// Source is one text a profile learns from.
type Source struct {
	SourceID string    `json:"sourceId"`
	Kind     string    `json:"kind"`
	Title    string    `json:"title"`
	URL      string    `json:"url"`
	Content  string    `json:"content"`
	AddedAt  time.Time `json:"addedAt"`
}

// SourceAddedV1 is a source added to a profile.
type SourceAddedV1 struct {
	ProfileID string    `json:"profile_id"`
	Source    Source    `json:"source"`
	At        time.Time `json:"at"`
}

// SourceRemovedV1 is a source taken out of a profile.
type SourceRemovedV1 struct {
	ProfileID string    `json:"profile_id"`
	SourceID  string    `json:"source_id"`
	At        time.Time `json:"at"`
}

// StyleSnapshot is a person's writing style measured over the profile's
// sources at one time.
type StyleSnapshot struct {
	SnapshotID string       `json:"snapshotId"`
	SourceIDs  []string     `json:"sourceIds"`
	Metrics    StyleMetrics `json:"metrics"`
	Summary    string       `json:"summary"`
	TakenAt    time.Time    `json:"takenAt"`
}

// StyleSnapshotTakenV1 is a style snapshot taken.
type StyleSnapshotTakenV1 struct {
	ProfileID string        `json:"profile_id"`
	Snapshot  StyleSnapshot `json:"snapshot"`
	At        time.Time     `json:"at"`
}

// Profile is the write model of a person profile.
type Profile struct {
	ID            string          `json:"profileId"`
	SubjectUserID string          `json:"subjectUserId"`
	DisplayName   string          `json:"displayName"`
	Headline      string          `json:"headline"`
	Sources       []Source        `json:"sources"`
	Snapshots     []StyleSnapshot `json:"styleSnapshots"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
	deleted       bool
}

// LoadProfile folds a profile's stream.
func LoadProfile(history []event.Recorded) (*Profile, error) {
	return profileFold.Load(&Profile{}, history)
}

var profileFold = event.Fold[*Profile]{
	ProfileCreated: event.Apply(func(p *Profile, e ProfileV1) {
		*p = Profile{ID: e.ProfileID, SubjectUserID: e.SubjectUserID, DisplayName: e.DisplayName, Headline: e.Headline,
			Sources: []Source{}, Snapshots: []StyleSnapshot{}, CreatedAt: e.At, UpdatedAt: e.At}
	}),
	ProfileUpdated: event.Apply(func(p *Profile, e ProfileV1) {
		p.DisplayName, p.Headline, p.UpdatedAt = e.DisplayName, e.Headline, e.At
	}),
	ProfileDeleted: event.Mark(func(p *Profile) { p.deleted = true }),
	SourceAdded: event.Apply(func(p *Profile, e SourceAddedV1) {
		p.Sources, p.UpdatedAt = append(p.Sources, e.Source), e.At
	}),
	SourceRemoved: event.Apply(func(p *Profile, e SourceRemovedV1) {
		for i, s := range p.Sources {
			if s.SourceID == e.SourceID {
				p.Sources = append(p.Sources[:i:i], p.Sources[i+1:]...)
				break
			}
		}
		p.UpdatedAt = e.At
	}),
	StyleSnapshotTaken: event.Apply(func(p *Profile, e StyleSnapshotTakenV1) {
		p.Snapshots, p.UpdatedAt = append(p.Snapshots, e.Snapshot), e.At
	}),
}

// Exists: created and not deleted.
func (p *Profile) Exists() bool { return p.ID != "" && !p.deleted }

// ProfileInput is a profile as a person writes it.
type ProfileInput struct {
	SubjectUserID string `json:"subjectUserId"`
	DisplayName   string `json:"displayName"`
	Headline      string `json:"headline"`
}

func checkProfile(displayName, headline string) []errs.Field {
	var f []errs.Field
	if displayName == "" {
		f = append(f, errs.Field{Pointer: "/displayName", Detail: "a profile needs a display name"})
	}
	f = text.Line(f, "/displayName", displayName, text.MaxTitle)
	return text.Line(f, "/headline", headline, MaxHeadline)
}

func subjectClaim(organizationID, userID string) string { return organizationID + ":" + userID }

// Create makes a profile of a person of the organization (one per person).
func (p *Profile) Create(id, organizationID string, in ProfileInput, now time.Time) ([]event.Change, error) {
	in.DisplayName, in.Headline = text.Trim(in.DisplayName), text.Trim(in.Headline)
	if f := checkProfile(in.DisplayName, in.Headline); len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	if p.ID != "" {
		return nil, errs.Conflict("profile_exists", "a profile with this id exists")
	}
	c := event.New(ProfileCreated, ProfileV1{ProfileID: id, SubjectUserID: in.SubjectUserID, DisplayName: in.DisplayName,
		Headline: in.Headline, At: now})
	c.Unique = []event.Unique{{Kind: UniqueProfileSubject, Value: subjectClaim(organizationID, in.SubjectUserID)}}
	return []event.Change{c}, nil
}

// ProfilePatch changes a profile's names.
type ProfilePatch struct {
	DisplayName *string `json:"displayName"`
	Headline    *string `json:"headline"`
}

// Update changes what a patch names.
func (p *Profile) Update(in ProfilePatch, now time.Time) ([]event.Change, error) {
	if !p.Exists() {
		return nil, errs.NotFound("person profile")
	}
	name, headline := p.DisplayName, p.Headline
	if in.DisplayName != nil {
		name = text.Trim(*in.DisplayName)
	}
	if in.Headline != nil {
		headline = text.Trim(*in.Headline)
	}
	if f := checkProfile(name, headline); len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	if name == p.DisplayName && headline == p.Headline {
		return nil, nil
	}
	return []event.Change{event.New(ProfileUpdated, ProfileV1{ProfileID: p.ID, SubjectUserID: p.SubjectUserID, DisplayName: name,
		Headline: headline, At: now})}, nil
}

// Delete removes the profile (its person may have a new one).
func (p *Profile) Delete(organizationID string, now time.Time) ([]event.Change, error) {
	if !p.Exists() {
		return nil, errs.NotFound("person profile")
	}
	c := event.New(ProfileDeleted, ProfileDeletedV1{ProfileID: p.ID, At: now})
	c.Unique = []event.Unique{{Kind: UniqueProfileSubject, Value: subjectClaim(organizationID, p.SubjectUserID), Release: true}}
	return []event.Change{c}, nil
}

// SourceInput is a source as a person adds it.
type SourceInput struct {
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	URL     string `json:"url"`
	Content string `json:"content"`
}

// AddSource adds a text the profile learns from.
func (p *Profile) AddSource(id string, in SourceInput, now time.Time) ([]event.Change, error) {
	if !p.Exists() {
		return nil, errs.NotFound("person profile")
	}
	s := Source{SourceID: id, Kind: in.Kind, Title: text.Trim(in.Title), URL: strings.TrimSpace(in.URL),
		Content: strings.TrimSpace(in.Content), AddedAt: now}
	var f []errs.Field
	if !contains(SourceKinds, s.Kind) {
		f = append(f, errs.Field{Pointer: "/kind", Detail: "must be post, email, article, transcript or note"})
	}
	if s.Title == "" {
		f = append(f, errs.Field{Pointer: "/title", Detail: "a source needs a title"})
	}
	f = text.Line(f, "/title", s.Title, text.MaxTitle)
	if s.Content == "" {
		f = append(f, errs.Field{Pointer: "/content", Detail: "a source needs content"})
	}
	f = text.MultiLine(f, "/content", s.Content, MaxSourceContent)
	f = CheckLink(f, "/url", s.URL)
	if len(p.Sources) >= MaxSources {
		f = append(f, errs.Field{Pointer: "", Detail: "a profile has at most 200 sources"})
	}
	if len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	return []event.Change{event.New(SourceAdded, SourceAddedV1{ProfileID: p.ID, Source: s, At: now})}, nil
}

// RemoveSource takes a source out.
func (p *Profile) RemoveSource(sourceID string, now time.Time) ([]event.Change, error) {
	if !p.Exists() {
		return nil, errs.NotFound("person profile")
	}
	for _, s := range p.Sources {
		if s.SourceID == sourceID {
			return []event.Change{event.New(SourceRemoved, SourceRemovedV1{ProfileID: p.ID, SourceID: sourceID, At: now})}, nil
		}
	}
	return nil, errs.NotFound("source")
}

// TakeSnapshot measures the person's style over the profile's sources now.
func (p *Profile) TakeSnapshot(id string, now time.Time) ([]event.Change, error) {
	if !p.Exists() {
		return nil, errs.NotFound("person profile")
	}
	if len(p.Sources) == 0 {
		return nil, errs.Conflict("no_sources", "a style snapshot needs sources: add what the person wrote first")
	}
	texts := make([]string, len(p.Sources))
	ids := make([]string, len(p.Sources))
	for i, s := range p.Sources {
		texts[i], ids[i] = s.Content, s.SourceID
	}
	m := Measure(texts)
	snap := StyleSnapshot{SnapshotID: id, SourceIDs: ids, Metrics: m, Summary: m.Summary(), TakenAt: now}
	return []event.Change{event.New(StyleSnapshotTaken, StyleSnapshotTakenV1{ProfileID: p.ID, Snapshot: snap, At: now})}, nil
}

// Latest is the profile's newest style snapshot (nil: none).
func (p *Profile) Latest() *StyleSnapshot {
	if len(p.Snapshots) == 0 {
		return nil
	}
	s := p.Snapshots[len(p.Snapshots)-1]
	return &s
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ProfileView is a profile as its commands and reads answer it: without
// its sources' texts (a profile holds up to 200 of them).
type ProfileView struct {
	ProfileID     string         `json:"profileId"`
	SubjectUserID string         `json:"subjectUserId"`
	DisplayName   string         `json:"displayName"`
	Headline      string         `json:"headline"`
	Sources       int            `json:"sources"`
	StyleSnapshot *StyleSnapshot `json:"styleSnapshot"`
	CreatedAt     time.Time      `json:"createdAt"`
	UpdatedAt     time.Time      `json:"updatedAt"`
}

// View is the profile's view.
func (p *Profile) View() ProfileView {
	return ProfileView{ProfileID: p.ID, SubjectUserID: p.SubjectUserID, DisplayName: p.DisplayName, Headline: p.Headline,
		Sources: len(p.Sources), StyleSnapshot: p.Latest(), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}
