package publishing

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/internal/objectstore"
)

// AI is the usage gateway as publishing uses it: metered, under the
// organization's spend caps; an upstream rate limit is errs.RateLimited
// with its Retry-After.
type AI interface {
	// GenerateImage draws one image for a prompt.
	GenerateImage(ctx context.Context, organizationID, userID, prompt, size string) (GeneratedImage, error)
	// Write answers a completion for a prompt (suggestion copy).
	Write(ctx context.Context, organizationID, userID, system, prompt string, maxTokens int) (string, error)
}

// GeneratedImage is an image the gateway returned.
type GeneratedImage struct {
	Data        []byte
	ContentType string
	Model       string
}

// Studio is publishing's AI: images into the media library, and suggestion
// drafts from trend or seed items into the content-ops queue.
type Studio struct {
	h       *Handlers
	ai      AI // nil: the gateway is not available (503)
	library *MediaLibrary
}

func NewStudio(h *Handlers, ai AI, library *MediaLibrary) *Studio {
	return &Studio{h: h, ai: ai, library: library}
}

// SetAI sets the gateway client (the module does when the gateway module
// provides one; tests set a fake).
func (s *Studio) SetAI(ai AI) { s.ai = ai }

var errNoGateway = errs.Unavailable("publishing: the usage gateway is not available", nil)

// GenerateImageIn is ai.generate_image's input.
type GenerateImageIn struct {
	BrandID string `json:"brandId"`
	Prompt  string `json:"prompt"`
	Size    string `json:"size"`
}

// GeneratedMedia is the generated image, kept in the media library.
type GeneratedMedia struct {
	Media domain.Media `json:"media"`
	URL   string       `json:"url"`
	Model string       `json:"model"`
}

// GenerateImage draws an image through the gateway and keeps it as a
// media file of the brand.
func (s *Studio) GenerateImage(ctx context.Context, m commands.Meta, in GenerateImageIn) (commands.Result[GeneratedMedia], error) {
	if s.ai == nil {
		return commands.Result[GeneratedMedia]{}, errNoGateway
	}
	if s.library == nil {
		return commands.Result[GeneratedMedia]{}, errs.Unavailable("publishing: no object store", nil)
	}
	meta, brandID := m, (*string)(nil)
	if in.BrandID != "" {
		b, err := s.h.Brand(ctx, m.OrganizationID, in.BrandID)
		if err != nil {
			return commands.Result[GeneratedMedia]{}, err
		}
		meta, brandID = home(m, b), &b.BrandID
	}
	size := in.Size
	if size == "" {
		size = "1024x1024"
	}
	img, err := s.ai.GenerateImage(ctx, m.OrganizationID, aiUser(m), in.Prompt, size)
	if err != nil {
		return commands.Result[GeneratedMedia]{}, err
	}
	ct := img.ContentType
	if _, ok := domain.MediaTypes[ct]; !ok || !strings.HasPrefix(ct, "image/") {
		ct = "image/png"
	}
	id := uuid.Must(uuid.NewV7()).String()
	key := mediaKey(meta.OrganizationID, id)
	if _, err := s.library.store.Put(ctx, key, bytes.NewReader(img.Data), objectstore.PutOptions{ContentType: ct, Size: int64(len(img.Data))}); err != nil {
		return commands.Result[GeneratedMedia]{}, errs.Unavailable("publishing: the image could not be stored", err)
	}
	media := domain.Media{MediaID: id, BrandID: brandID, Filename: "generated-" + id[:8] + "." + strings.TrimPrefix(ct, "image/"), ContentType: ct,
		Size: int64(len(img.Data)), Key: key, Kind: "image", CreatedBy: m.Actor.ID, CreatedAt: s.h.now()}
	res, err := commands.Run(ctx, s.h.store, meta, domain.StreamMedia, id, func([]event.Recorded) ([]event.Change, domain.Media, error) {
		return domain.RegisterMedia(media, s.h.now()), media, nil
	})
	if err != nil {
		return commands.Result[GeneratedMedia]{}, err
	}
	dl, err := s.library.store.PresignDownload(ctx, key, objectstore.DownloadOptions{Expires: time.Hour})
	if err != nil {
		return commands.Result[GeneratedMedia]{}, errs.Unavailable("publishing: the object store cannot sign a download", err)
	}
	return commands.Result[GeneratedMedia]{Value: GeneratedMedia{Media: res.Value, URL: dl.URL, Model: img.Model}, Position: res.Position}, nil
}

// SourceItem is a trend or seed item suggestions start from.
type SourceItem struct {
	Title     string  `json:"title"`
	Text      string  `json:"text"`
	SourceURL *string `json:"sourceUrl"`
}

// SuggestIn is content_strategy.suggestions.generate_from_trends' input.
type SuggestIn struct {
	BrandID   string       `json:"brandId"`
	Items     []SourceItem `json:"items"`
	Platforms []string     `json:"platforms"`
}

// Suggestions are the drafts made, awaiting approval.
type Suggestions struct {
	Suggestions []domain.Post `json:"suggestions"`
}

// Suggest writes one platform-specific draft per platform from the
// supplied items, through the gateway; each lands in the content-ops queue
// as a suggestion draft awaiting approval.
func (s *Studio) Suggest(ctx context.Context, m commands.Meta, in SuggestIn) (commands.Result[Suggestions], error) {
	if s.ai == nil {
		return commands.Result[Suggestions]{}, errNoGateway
	}
	b, err := s.h.Brand(ctx, m.OrganizationID, in.BrandID)
	if err != nil {
		return commands.Result[Suggestions]{}, err
	}
	var src strings.Builder
	for i, it := range in.Items {
		fmt.Fprintf(&src, "%d. %s\n%s\n", i+1, it.Title, it.Text)
		if it.SourceURL != nil {
			fmt.Fprintf(&src, "(%s)\n", *it.SourceURL)
		}
	}
	out := Suggestions{Suggestions: []domain.Post{}}
	var last commands.Result[domain.Post]
	for _, platform := range in.Platforms {
		copy, err := s.ai.Write(ctx, m.OrganizationID, aiUser(m),
			"You write one social media post for the brand "+b.Name+". Answer with the post's text only.",
			"Network: "+platform+"\nWrite a post inspired by these items:\n"+src.String(), 400)
		if err != nil {
			return commands.Result[Suggestions]{}, err
		}
		copy = strings.TrimSpace(copy)
		if r := []rune(copy); len(r) > domain.MaxText {
			copy = string(r[:domain.MaxText])
		}
		n := domain.NewPost{ID: uuid.Must(uuid.NewV7()).String(), BrandID: b.BrandID, AuthorID: m.Actor.ID, Origin: domain.OriginSuggestion,
			Draft: domain.Draft{Items: []domain.Item{{Text: copy}}, Targets: []domain.TargetSpec{{Network: platform}}}}
		pm := home(m, b)
		if pm.IdempotencyKey != "" {
			pm.IdempotencyKey += ":" + platform // one request makes a post per platform, each replayed as such
		}
		if last, err = s.h.createPost(ctx, pm, n); err != nil {
			return commands.Result[Suggestions]{}, err
		}
		out.Suggestions = append(out.Suggestions, last.Value)
	}
	return commands.Result[Suggestions]{Value: out, Position: last.Position}, nil
}

// ShareSeedIn is seeds.share's input.
type ShareSeedIn struct {
	BrandID   string   `json:"brandId"`
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	SourceURL *string  `json:"sourceUrl"`
	Source    string   `json:"source"`
	Tags      []string `json:"tags"`
}

// ShareSeed saves a shared source item as a reusable seed of a brand.
func (h *Handlers) ShareSeed(ctx context.Context, m commands.Meta, in ShareSeedIn) (commands.Result[domain.Seed], error) {
	b, err := h.Brand(ctx, m.OrganizationID, in.BrandID)
	if err != nil {
		return commands.Result[domain.Seed]{}, err
	}
	source := in.Source
	if source == "" {
		source = "web"
	}
	seed := domain.Seed{SeedID: uuid.Must(uuid.NewV7()).String(), BrandID: b.BrandID, Title: in.Title, Text: in.Text,
		SourceURL: in.SourceURL, Source: source, Tags: in.Tags, SharedBy: m.Actor.ID}
	return commands.Run(ctx, h.store, home(m, b), domain.StreamSeed, seed.SeedID, func([]event.Recorded) ([]event.Change, domain.Seed, error) {
		changes, err := domain.ShareSeed(seed, h.now())
		if err != nil {
			return nil, domain.Seed{}, err
		}
		return changes, changes[0].Payload.(domain.SeedSharedV1).Seed, nil
	})
}

// aiUser is the user a studio call is charged to in the gateway (its user
// spend caps): the user the caller acts as, so a user's API key meets the
// user's caps as its session does; the actor itself when it acts as no user.
func aiUser(m commands.Meta) string { return cmp.Or(m.ActingUser, m.Actor.ID) }
