package gateway

import (
	"encoding/json"
	"fmt"
	"net/mail"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// StreamEmailProfiles is an organization's email profiles (seed 001): who
// sends (from, reply-to), through which connection, for which app. One
// stream per organization, so "one default profile" holds under
// concurrency.
const StreamEmailProfiles = "gateway.email_profiles"

// Email profile event types.
const (
	EmailProfileCreated = "gateway.email_profile.created"
	EmailProfileUpdated = "gateway.email_profile.updated"
	EmailProfileDeleted = "gateway.email_profile.deleted"
)

// EmailProfileEventTypes are the email profiles area's event types.
var EmailProfileEventTypes = []string{EmailProfileCreated, EmailProfileUpdated, EmailProfileDeleted}

// EmailProfilesStreamID is the profiles stream of an organization.
func EmailProfilesStreamID(org string) string { return "email_profiles:" + org }

// Bounds of seed 001's email profile.
const (
	MaxProfileName   = 120
	MaxEmailProfiles = 100
)

// EmailProfile is seed 001's email profile.
type EmailProfile struct {
	ProfileID    string    `json:"id"`
	ConnectionID string    `json:"connection_id"`
	ProfileName  string    `json:"profile_name"`
	FromName     string    `json:"from_name"`
	FromEmail    string    `json:"from_email"`
	ReplyToEmail *string   `json:"reply_to_email"`
	AppID        *string   `json:"app_id"`
	IsActive     bool      `json:"is_active"`
	IsDefault    bool      `json:"is_default"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// EmailProfileDeletedV1 names a removed profile.
type EmailProfileDeletedV1 struct {
	ProfileID string    `json:"id"`
	At        time.Time `json:"at"`
}

// EmailProfiles is the write model: the organization's profiles.
type EmailProfiles struct {
	Profiles []EmailProfile `json:"profiles"`
}

var profileFolds = map[string]func(p *EmailProfiles, r event.Recorded) error{
	event.SnapshotType:  func(p *EmailProfiles, r event.Recorded) error { return json.Unmarshal(r.Payload, p) },
	EmailProfileCreated: foldProfile,
	EmailProfileUpdated: foldProfile,
	EmailProfileDeleted: func(p *EmailProfiles, r event.Recorded) error {
		d, err := event.Decode[EmailProfileDeletedV1](r)
		p.Profiles = slices.DeleteFunc(p.Profiles, func(x EmailProfile) bool { return x.ProfileID == d.ProfileID })
		return err
	},
}

// foldProfile puts a profile in place; a new default takes the flag from
// every other profile.
func foldProfile(p *EmailProfiles, r event.Recorded) error {
	x, err := event.Decode[EmailProfile](r)
	if err != nil {
		return err
	}
	if x.IsDefault {
		for i := range p.Profiles {
			p.Profiles[i].IsDefault = false
		}
	}
	if i := p.index(x.ProfileID); i >= 0 {
		p.Profiles[i] = x
	} else {
		p.Profiles = append(p.Profiles, x)
	}
	return nil
}

// LoadEmailProfiles folds a profiles stream.
func LoadEmailProfiles(history []event.Recorded) (*EmailProfiles, error) {
	p := &EmailProfiles{Profiles: []EmailProfile{}}
	for _, r := range history {
		if f, ok := profileFolds[r.Type]; ok {
			if err := f(p, r); err != nil {
				return nil, fmt.Errorf("%s: %w", r.Type, err)
			}
		}
	}
	if p.Profiles == nil {
		p.Profiles = []EmailProfile{}
	}
	return p, nil
}

func (p *EmailProfiles) index(id string) int {
	return slices.IndexFunc(p.Profiles, func(x EmailProfile) bool { return x.ProfileID == id })
}

// Profile finds a profile.
func (p *EmailProfiles) Profile(id string) (EmailProfile, bool) {
	if i := p.index(id); i >= 0 {
		return p.Profiles[i], true
	}
	return EmailProfile{}, false
}

// Default is the active default profile, if any.
func (p *EmailProfiles) Default() (EmailProfile, bool) {
	for _, x := range p.Profiles {
		if x.IsDefault && x.IsActive {
			return x, true
		}
	}
	return EmailProfile{}, false
}

// ProfileInput is a create's or an update's members (update: nil keeps;
// SetReplyTo and SetAppID say a nullable member was named).
type ProfileInput struct {
	ConnectionID *string
	ProfileName  *string
	FromName     *string
	FromEmail    *string
	ReplyToEmail *string
	SetReplyTo   bool
	AppID        *string
	SetAppID     bool
	IsActive     *bool
	IsDefault    *bool
}

// Create adds a profile (the command checked that its connection is one of
// the organization's email connections).
func (p *EmailProfiles) Create(id string, in ProfileInput, now time.Time) ([]event.Change, error) {
	if p.index(id) >= 0 {
		return nil, errs.Conflict("email_profile_exists", "the profile exists already")
	}
	if len(p.Profiles) >= MaxEmailProfiles {
		return nil, errs.Conflict("email_profile_limit_reached", fmt.Sprintf("an organization has at most %d email profiles", MaxEmailProfiles))
	}
	x := EmailProfile{ProfileID: id, IsActive: true, CreatedAt: now, UpdatedAt: now}
	if fields := applyProfile(&x, in, true); len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	return []event.Change{event.New(EmailProfileCreated, x)}, nil
}

// Update changes a profile; the same members again change nothing.
func (p *EmailProfiles) Update(id string, in ProfileInput, now time.Time) ([]event.Change, error) {
	i := p.index(id)
	if i < 0 {
		return nil, errs.NotFound("email profile")
	}
	x := p.Profiles[i]
	if fields := applyProfile(&x, in, false); len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if sameProfile(x, p.Profiles[i]) {
		return nil, nil
	}
	x.UpdatedAt = now
	return []event.Change{event.New(EmailProfileUpdated, x)}, nil
}

// Delete removes a profile.
func (p *EmailProfiles) Delete(id string, now time.Time) ([]event.Change, error) {
	if p.index(id) < 0 {
		return nil, errs.NotFound("email profile")
	}
	return []event.Change{event.New(EmailProfileDeleted, EmailProfileDeletedV1{ProfileID: id, At: now})}, nil
}

func applyProfile(x *EmailProfile, in ProfileInput, creating bool) []errs.Field {
	var fields []errs.Field
	set := func(dst *string, v *string, pointer string, max int) {
		if v != nil {
			*dst = *v
		}
		if creating || v != nil {
			if strings.TrimSpace(*dst) == "" {
				fields = append(fields, errs.Field{Pointer: pointer, Detail: "must not be empty"})
			}
			fields = text.Line(fields, pointer, *dst, max)
		}
	}
	set(&x.ConnectionID, in.ConnectionID, "/connection_id", text.MaxID)
	set(&x.ProfileName, in.ProfileName, "/profile_name", MaxProfileName)
	set(&x.FromName, in.FromName, "/from_name", MaxProfileName)
	set(&x.FromEmail, in.FromEmail, "/from_email", text.MaxEmail)
	if (creating || in.FromEmail != nil) && !IsAddress(x.FromEmail) {
		fields = append(fields, errs.Field{Pointer: "/from_email", Detail: "must be an email address"})
	}
	if in.SetReplyTo {
		x.ReplyToEmail = in.ReplyToEmail
		if in.ReplyToEmail != nil && !IsAddress(*in.ReplyToEmail) {
			fields = append(fields, errs.Field{Pointer: "/reply_to_email", Detail: "must be an email address or null"})
		}
	}
	if in.SetAppID {
		x.AppID = in.AppID
		if in.AppID != nil {
			fields = text.Line(fields, "/app_id", *in.AppID, text.MaxID)
		}
	}
	if in.IsActive != nil {
		x.IsActive = *in.IsActive
	}
	if in.IsDefault != nil {
		x.IsDefault = *in.IsDefault
	}
	return fields
}

// IsAddress reports a bare email address (no display name).
func IsAddress(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && len(s) <= text.MaxEmail && text.IsLine(s)
}

func sameProfile(a, b EmailProfile) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
