package gateway

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/gateway/prices"
	"github.com/platform/backend/providers/ai"
)

// ImageInput is ai.images.create's input (also the library's): one prompt,
// 1..4 images (the units reserved and charged), a size the provider may
// honour.
type ImageInput struct {
	Prompt   string `json:"prompt"`
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Size     string `json:"size"`
	N        int    `json:"n"`
	AppID    string `json:"app_id"`
	UseCase  string `json:"use_case"`
	// IdempotencyKey, in-process only, makes the call a keyed one
	// (keyed.go): its answer is kept, and the same call again under the key
	// answers it with no provider call and no charge.
	IdempotencyKey string `json:"-"`
}

// MaxImages bounds one call: the reservation is the images asked for.
const MaxImages = 4

// Images are the generated images with what they cost.
type Images struct {
	Receipt
	Images       []GeneratedImage `json:"images"`
	ConnectionID string           `json:"connection_id"`
	Sandbox      bool             `json:"sandbox"`
}

// GeneratedImage is one image: its bytes or, where the protocol answers
// one, a URL (the HTTP action answers the bytes as base64).
type GeneratedImage struct {
	MIMEType      string `json:"mime_type"`
	Data          []byte `json:"-"`
	URL           string `json:"url"`
	RevisedPrompt string `json:"revised_prompt"`
}

// GenerateImage generates images through the metered path, priced per
// image: the reservation is the images asked for, the settle counts the
// images the provider answered (never 0 for a success: the metered path
// settles a success that reported nothing billable at its reservation).
func (c *Client) GenerateImage(ctx context.Context, caller Caller, in ImageInput) (Images, error) {
	if key := in.IdempotencyKey; key != "" {
		in.IdempotencyKey = ""
		out, _, err := keyed(ctx, c, caller.OrganizationID, key, "ai.images", in, func(ctx context.Context) (Images, error) {
			return c.GenerateImage(ctx, caller, in)
		}, encodeImages, decodeImages)
		return out, err
	}
	n := max(in.N, 1)
	if n > MaxImages {
		return Images{}, errs.InvalidField("/n", "at most 4 images a call")
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return Images{}, errs.InvalidField("/prompt", "must not be empty")
	}
	conn, err := c.imageConnection(ctx, caller, in.Provider)
	if err != nil {
		return Images{}, err
	}
	model := ai.Pick(in.Model, conn.Info.Models.Image)
	call := c.aiCall(withDefaults(caller, in.AppID, firstOf(in.UseCase, "image")), conn, "ai.images", model, prices.OpImage,
		prices.Units{Images: int64(n)})
	req := ai.ImageRequest{Model: model, Prompt: in.Prompt, Size: in.Size}
	if n > 1 {
		req.N = n // 0 asks for one: the protocols that take no count then take the request
	}
	receipt, resp, err := meterAI(ctx, c, call, func(ctx context.Context) (*ai.ImageResponse, error) {
		return conn.Provider.GenerateImage(ctx, req)
	}, func(r *ai.ImageResponse) (ai.Usage, string) { return r.Usage, r.RequestID })
	if err != nil {
		return Images{}, err
	}
	out := Images{Receipt: receipt, Images: []GeneratedImage{}, ConnectionID: conn.ID, Sandbox: conn.Sandbox}
	for _, img := range resp.Images {
		mime := img.MIMEType
		if mime == "" && len(img.Data) > 0 {
			mime, _, _ = strings.Cut(http.DetectContentType(img.Data), ";")
		}
		out.Images = append(out.Images, GeneratedImage{MIMEType: mime, Data: img.Data, URL: img.URL, RevisedPrompt: img.RevisedPrompt})
	}
	return out, nil
}

// imageConnection is the named provider's connection, else the first
// provider (in the seed's order) whose connection generates images: a
// platform may have no connection of the default provider, and a provider
// such as ai_provider_2 (Anthropic) draws none.
func (c *Client) imageConnection(ctx context.Context, caller Caller, provider string) (AIConnection, error) {
	if provider != "" {
		conn, err := c.connection(ctx, caller, provider)
		if err == nil && !conn.Provider.Capabilities().Has(ai.CapImageGeneration) {
			err = errs.InvalidField("/provider", "the provider "+provider+" does not generate images")
		}
		return conn, err
	}
	for _, info := range ai.Providers() {
		conn, err := c.connection(ctx, caller, string(info.ID))
		var e *errs.Error
		switch {
		case err == nil && conn.Provider.Capabilities().Has(ai.CapImageGeneration):
			return conn, nil
		case err != nil && !(errors.As(err, &e) && e.Kind == errs.KindInvalidInput):
			return AIConnection{}, err // an outage, not a missing connection
		}
	}
	return AIConnection{}, errs.Unavailable("no AI provider that generates images is configured", nil)
}
