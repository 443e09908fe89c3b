package identity

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// slugPattern: lowercase alphanumeric with internal hyphens; length checked apart.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSlug reports whether s is a well-formed organization slug (3..48).
func ValidSlug(s string) bool { return len(s) >= 3 && len(s) <= 48 && slugPattern.MatchString(s) }

type Organization struct{ created OrganizationCreatedV1 }

func LoadOrganization(history []event.Recorded) (*Organization, error) {
	o := &Organization{}
	for _, r := range history {
		if r.Type == OrganizationCreated {
			if err := json.Unmarshal(r.Payload, &o.created); err != nil {
				return nil, err
			}
		}
	}
	return o, nil
}

func (o *Organization) Exists() bool                 { return o.created.OrganizationID != "" }
func (o *Organization) State() OrganizationCreatedV1 { return o.created }

func (o *Organization) Create(id, name, slug string, now time.Time) ([]event.Change, error) {
	var fields []errs.Field
	if strings.TrimSpace(name) == "" {
		fields = append(fields, errs.Field{Pointer: "/name", Detail: "must not be empty"})
	}
	if !ValidSlug(slug) {
		fields = append(fields, errs.Field{Pointer: "/slug", Detail: "lowercase letters and digits with internal hyphens, 3 to 48 characters"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if o.Exists() {
		return nil, errs.Conflict("organization_exists", "the organization already exists")
	}
	return []event.Change{event.New(OrganizationCreated, OrganizationCreatedV1{OrganizationID: id, Name: name, Slug: slug, CreatedAt: now})}, nil
}
