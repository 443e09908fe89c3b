package gateway

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/gateway"
)

// Inputs of the email profile commands (seed 001's email profile).
type (
	CreateEmailProfile struct {
		ConnectionID string  `json:"connection_id"`
		ProfileName  string  `json:"profile_name"`
		FromName     string  `json:"from_name"`
		FromEmail    string  `json:"from_email"`
		ReplyToEmail *string `json:"reply_to_email"`
		AppID        *string `json:"app_id"`
		IsActive     *bool   `json:"is_active"`
		IsDefault    *bool   `json:"is_default"`
	}
	UpdateEmailProfile struct {
		ID           string          `json:"id"`
		ConnectionID *string         `json:"connection_id"`
		ProfileName  *string         `json:"profile_name"`
		FromName     *string         `json:"from_name"`
		FromEmail    *string         `json:"from_email"`
		ReplyToEmail json.RawMessage `json:"reply_to_email"`
		AppID        json.RawMessage `json:"app_id"`
		IsActive     *bool           `json:"is_active"`
		IsDefault    *bool           `json:"is_default"`
	}
	DeleteEmailProfile struct {
		ID string `json:"id"`
	}
)

// EmailProfileAnswer is a profile command's answer: the profile (absent
// after a delete) and how many the organization has.
type EmailProfileAnswer struct {
	Profile  *domain.EmailProfile `json:"profile"`
	Profiles int                  `json:"profiles"`
}

func (e *Edge) CreateEmailProfile(ctx context.Context, m commands.Meta, in CreateEmailProfile) (commands.Result[EmailProfileAnswer], error) {
	if err := e.checkEmailConnection(ctx, m.OrganizationID, in.ConnectionID); err != nil {
		return commands.Result[EmailProfileAnswer]{}, err
	}
	id := "ep_" + strings.ReplaceAll(uuid.Must(uuid.NewV7()).String(), "-", "")
	return e.profiles(ctx, m, id, func(p *domain.EmailProfiles) ([]event.Change, error) {
		return p.Create(id, domain.ProfileInput{ConnectionID: &in.ConnectionID, ProfileName: &in.ProfileName, FromName: &in.FromName,
			FromEmail: &in.FromEmail, ReplyToEmail: in.ReplyToEmail, SetReplyTo: true, AppID: in.AppID, SetAppID: true,
			IsActive: in.IsActive, IsDefault: in.IsDefault}, e.h.now())
	})
}

func (e *Edge) UpdateEmailProfile(ctx context.Context, m commands.Meta, in UpdateEmailProfile) (commands.Result[EmailProfileAnswer], error) {
	d := domain.ProfileInput{ConnectionID: in.ConnectionID, ProfileName: in.ProfileName, FromName: in.FromName, FromEmail: in.FromEmail,
		IsActive: in.IsActive, IsDefault: in.IsDefault}
	var err error
	if d.ReplyToEmail, d.SetReplyTo, err = nullableString(in.ReplyToEmail, "/reply_to_email"); err != nil {
		return commands.Result[EmailProfileAnswer]{}, err
	}
	if d.AppID, d.SetAppID, err = nullableString(in.AppID, "/app_id"); err != nil {
		return commands.Result[EmailProfileAnswer]{}, err
	}
	if in.ConnectionID != nil {
		if err := e.checkEmailConnection(ctx, m.OrganizationID, *in.ConnectionID); err != nil {
			return commands.Result[EmailProfileAnswer]{}, err
		}
	}
	return e.profiles(ctx, m, in.ID, func(p *domain.EmailProfiles) ([]event.Change, error) { return p.Update(in.ID, d, e.h.now()) })
}

func (e *Edge) DeleteEmailProfile(ctx context.Context, m commands.Meta, in DeleteEmailProfile) (commands.Result[EmailProfileAnswer], error) {
	return e.profiles(ctx, m, in.ID, func(p *domain.EmailProfiles) ([]event.Change, error) { return p.Delete(in.ID, e.h.now()) })
}

// profiles runs a command on the organization's profiles stream and
// answers with the profile it names (no snapshot: the answer is not the
// whole model).
func (e *Edge) profiles(ctx context.Context, m commands.Meta, id string, act func(*domain.EmailProfiles) ([]event.Change, error)) (commands.Result[EmailProfileAnswer], error) {
	return commands.Execute(ctx, e.h.store, m, domain.StreamEmailProfiles, domain.EmailProfilesStreamID(m.OrganizationID),
		domain.LoadEmailProfiles, act, func(p *domain.EmailProfiles) EmailProfileAnswer {
			out := EmailProfileAnswer{Profiles: len(p.Profiles)}
			if x, ok := p.Profile(id); ok {
				out.Profile = &x
			}
			return out
		})
}

// checkEmailConnection: a profile sends through one of the
// organization's email connections (not a deleted one).
func (e *Edge) checkEmailConnection(ctx context.Context, org, id string) error {
	r, ok, err := e.connectionByID(ctx, id)
	switch {
	case err != nil:
		return err
	case !ok || r.Org != org:
		return errs.InvalidField("/connection_id", "no such connection")
	case r.Kind != domain.KindEmail:
		return errs.InvalidField("/connection_id", "not an email connection")
	}
	return nil
}
