package publishing

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Media limits: what an upload may be (refused before any byte is stored).
const MaxMediaBytes = 100 << 20

// MediaTypes are the content types a media file may have, with their limit.
var MediaTypes = map[string]int64{
	"image/jpeg": 20 << 20, "image/png": 20 << 20, "image/gif": 15 << 20, "image/webp": 20 << 20,
	"video/mp4": MaxMediaBytes, "video/quicktime": MaxMediaBytes,
}

// MediaContentTypes lists MediaTypes' keys, sorted (the HTTP enum).
func MediaContentTypes() []string {
	out := make([]string, 0, len(MediaTypes))
	for k := range MediaTypes {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Media is one file of a brand's library.
type Media struct {
	MediaID     string  `json:"id"`
	BrandID     *string `json:"brand_id"`
	Filename    string  `json:"filename"`
	ContentType string  `json:"content_type"`
	Size        int64   `json:"size"`
	Key         string  `json:"-"`
	// OrganizationID is the organization whose store holds the file (a
	// brand's home organization, or the uploader's for a file of no brand).
	OrganizationID string    `json:"-"`
	Kind           string    `json:"kind"` // image or video
	CreatedBy      string    `json:"created_by"`
	CreatedAt      time.Time `json:"created_at"`
}

// UsableBy reports whether a post of the brand may use the file: the
// brand's own, or one of no brand in the brand's home organization. Any
// other file (another brand's, another organization's) is as unknown to
// the post as a missing one.
func (m Media) UsableBy(b *Brand) bool {
	if m.BrandID != nil {
		return *m.BrandID == b.BrandID
	}
	return m.OrganizationID == b.HomeOrganizationID
}

// MediaRegisteredV1 is a media file whose upload was granted.
type MediaRegisteredV1 struct {
	MediaID     string    `json:"media_id"`
	BrandID     *string   `json:"brand_id"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	Size        int64     `json:"size"`
	Key         string    `json:"key"`
	CreatedBy   string    `json:"created_by"`
	At          time.Time `json:"occurred_at"`
}

// CheckUpload refuses an upload the library would not keep, before any URL
// is handed out: 413 for the size, 400/422 for the type or name.
func CheckUpload(filename, contentType string, size int64) error {
	limit, ok := MediaTypes[contentType]
	fields := text.Line(nil, "/filename", filename, text.MaxTitle)
	if filename == "" || strings.ContainsAny(filename, `/\`) {
		fields = append(fields, errs.Field{Pointer: "/filename", Detail: "must be a file name without a path"})
	}
	if !ok {
		fields = append(fields, errs.Field{Pointer: "/contentType", Detail: "must be one of " + strings.Join(MediaContentTypes(), ", ")})
	}
	if size <= 0 {
		fields = append(fields, errs.Field{Pointer: "/size", Detail: "must be positive"})
	}
	if len(fields) > 0 {
		return errs.Invalid(fields...)
	}
	if size > limit {
		return errs.TooLarge("media_too_large", fmt.Sprintf("a %s file may have at most %d bytes", contentType, limit))
	}
	return nil
}

// RegisterMedia records a granted upload.
func RegisterMedia(m Media, now time.Time) []event.Change {
	return []event.Change{event.New(MediaRegistered, MediaRegisteredV1{MediaID: m.MediaID, BrandID: m.BrandID, Filename: m.Filename,
		ContentType: m.ContentType, Size: m.Size, Key: m.Key, CreatedBy: m.CreatedBy, At: now})}
}

// MediaKind is image or video by content type.
func MediaKind(contentType string) string {
	if strings.HasPrefix(contentType, "video/") {
		return "video"
	}
	return "image"
}

// Seed is a shared source item saved as a reusable seed of a brand.
type Seed struct {
	SeedID    string    `json:"id"`
	BrandID   string    `json:"brand_id"`
	Title     string    `json:"title"`
	Text      string    `json:"text"`
	SourceURL *string   `json:"source_url"`
	Source    string    `json:"source"` // where it was shared from: a network or "web"
	Tags      []string  `json:"tags"`
	SharedBy  string    `json:"shared_by"`
	SharedAt  time.Time `json:"shared_at"`
}

// SeedSharedV1 is the payload of SeedShared.
type SeedSharedV1 struct {
	Seed Seed `json:"seed"`
}

// ShareSeed records a seed.
func ShareSeed(s Seed, now time.Time) ([]event.Change, error) {
	fields := text.Line(nil, "/title", s.Title, text.MaxTitle)
	fields = text.MultiLine(fields, "/text", s.Text, MaxText)
	if s.SourceURL != nil {
		fields = text.URL(fields, "/sourceUrl", *s.SourceURL, text.URLRules{})
	}
	if s.Title == "" && s.Text == "" {
		fields = append(fields, errs.Field{Pointer: "/text", Detail: "a seed needs a title or text"})
	}
	if len(fields) > 0 {
		return nil, errs.Invalid(fields...)
	}
	if s.Tags == nil {
		s.Tags = []string{}
	}
	s.SharedAt = now
	return []event.Change{event.New(SeedShared, SeedSharedV1{Seed: s})}, nil
}
