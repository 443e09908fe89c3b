package publishing

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/objectstore"
	"github.com/platform/backend/providers/social"
)

// MediaLibrary grants presigned uploads into the object store and turns a
// post's media ids into what networks take.
type MediaLibrary struct {
	h     *Handlers
	store objectstore.Store
	// file finds a media file by id (the read model).
	file func(ctx context.Context, mediaID string) (domain.Media, error)
}

var _ MediaSource = (*MediaLibrary)(nil)

func NewMediaLibrary(h *Handlers, store objectstore.Store, file func(ctx context.Context, mediaID string) (domain.Media, error)) *MediaLibrary {
	return &MediaLibrary{h: h, store: store, file: file}
}

// Store is the library's object store (health checks).
func (l *MediaLibrary) Store() objectstore.Store { return l.store }

// Upload is media.upload's input: what will be uploaded, so the limits are
// checked before any URL is handed out.
type Upload struct {
	BrandID     string `json:"brandId"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
}

// UploadGrant is where and how to upload.
type UploadGrant struct {
	Media     domain.Media      `json:"media"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers"`
	Fields    map[string]string `json:"fields"`
	MaxBytes  int64             `json:"max_bytes"`
	ExpiresAt time.Time         `json:"expires_at"`
}

// Upload registers a media file and answers a presigned upload URL bound to
// its type and size: an upload over the size or of another type is refused
// by the store before a byte is kept, and a request over the limits gets no
// URL at all (413 for the size, 400 for the type).
func (l *MediaLibrary) Upload(ctx context.Context, m commands.Meta, in Upload) (commands.Result[UploadGrant], error) {
	if err := domain.CheckUpload(in.Filename, in.ContentType, in.Size); err != nil {
		return commands.Result[UploadGrant]{}, err
	}
	var brandID *string
	if in.BrandID != "" {
		b, err := l.h.Brand(ctx, m.OrganizationID, in.BrandID)
		if err != nil {
			return commands.Result[UploadGrant]{}, err
		}
		m, brandID = home(m, b), &b.BrandID
	}
	id := uuid.Must(uuid.NewV7()).String()
	media := domain.Media{MediaID: id, BrandID: brandID, Filename: in.Filename, ContentType: in.ContentType, Size: in.Size,
		Key: mediaKey(m.OrganizationID, id), Kind: domain.MediaKind(in.ContentType), CreatedBy: m.Actor.ID,
		CreatedAt: l.h.now()}
	grant, err := l.store.PresignUpload(ctx, media.Key, objectstore.UploadPolicy{ContentType: in.ContentType, MaxBytes: in.Size})
	if err != nil {
		return commands.Result[UploadGrant]{}, errs.Unavailable("publishing: the object store cannot sign an upload", err)
	}
	res, err := commands.Run(ctx, l.h.store, m, domain.StreamMedia, id, func([]event.Recorded) ([]event.Change, domain.Media, error) {
		return domain.RegisterMedia(media, l.h.now()), media, nil
	})
	if err != nil {
		return commands.Result[UploadGrant]{}, err
	}
	if res.Replayed {
		// The first request's file: its upload is signed again.
		if grant, err = l.store.PresignUpload(ctx, mediaKey(m.OrganizationID, res.Value.MediaID),
			objectstore.UploadPolicy{ContentType: res.Value.ContentType, MaxBytes: res.Value.Size}); err != nil {
			return commands.Result[UploadGrant]{}, errs.Unavailable("publishing: the object store cannot sign an upload", err)
		}
	}
	headers, fields := grant.Headers, grant.Fields
	if headers == nil {
		headers = map[string]string{}
	}
	if fields == nil {
		fields = map[string]string{}
	}
	return commands.Result[UploadGrant]{Value: UploadGrant{Media: res.Value, Method: grant.Method, URL: grant.URL, Headers: headers,
		Fields: fields, MaxBytes: grant.MaxBytes, ExpiresAt: grant.ExpiresAt}, Position: res.Position, Replayed: res.Replayed}, nil
}

// mediaKey is where a media file's bytes are: under its brand's home
// organization.
func mediaKey(organizationID, mediaID string) string {
	return "publishing/" + organizationID + "/media/" + mediaID
}

// Media turns media ids of a brand into network media: a presigned URL for
// networks that pull, the bytes for those that take uploads. A file is the
// brand's own, or one of no brand in the brand's home organization; any
// other id is missing (a post cannot publish another tenant's file).
func (l *MediaLibrary) Media(ctx context.Context, brand *domain.Brand, ids []string) ([]social.Media, error) {
	out := make([]social.Media, 0, len(ids))
	for _, id := range ids {
		f, err := l.file(ctx, id)
		if err != nil {
			return nil, err
		}
		if !f.UsableBy(brand) {
			return nil, errs.NotFound("media")
		}
		dl, err := l.store.PresignDownload(ctx, f.Key, objectstore.DownloadOptions{Expires: time.Hour})
		if err != nil {
			return nil, err
		}
		key := f.Key
		out = append(out, social.Media{Kind: social.MediaKind(f.Kind), URL: dl.URL, ContentType: f.ContentType, Size: f.Size,
			Open: func(ctx context.Context) (io.ReadCloser, error) {
				obj, err := l.store.Get(ctx, key)
				if err != nil {
					return nil, err
				}
				return obj.Body, nil
			}})
	}
	return out, nil
}

// checkPostMedia is checkMedia for a post of the brand brandID (loaded
// only when the items name a file).
func (h *Handlers) checkPostMedia(ctx context.Context, brandID string, items []domain.Item) error {
	for _, it := range items {
		if len(it.Media) > 0 {
			b, err := h.BrandAny(ctx, brandID)
			if err != nil {
				return err
			}
			return h.checkMedia(ctx, b, items)
		}
	}
	return nil
}

// checkMedia refuses, before a post is written, a media id its brand may
// not use: a missing file, another brand's or another organization's, all
// alike (404 media). Read from the write side, so a file registered a
// moment ago is there; the publisher checks again when it sends.
func (h *Handlers) checkMedia(ctx context.Context, brand *domain.Brand, items []domain.Item) error {
	seen := map[string]bool{}
	for _, it := range items {
		for _, id := range it.Media {
			if seen[id] {
				continue
			}
			seen[id] = true
			history, err := h.store.Load(ctx, id)
			if err != nil {
				return err
			}
			if len(history) == 0 || history[0].StreamType != domain.StreamMedia || history[0].Type != domain.MediaRegistered {
				return errs.NotFound("media")
			}
			var reg domain.MediaRegisteredV1
			if err := json.Unmarshal(history[0].Payload, &reg); err != nil {
				return err
			}
			if !(domain.Media{BrandID: reg.BrandID, OrganizationID: history[0].OrganizationID}).UsableBy(brand) {
				return errs.NotFound("media")
			}
		}
	}
	return nil
}
