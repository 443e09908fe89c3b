package gateway

import (
	"context"
	"encoding/base64"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	httpapi "github.com/platform/backend/http"
)

// imageProviders are the providers whose protocol generates images (not
// ai_provider_2: Anthropic's Messages API draws none).
var imageProviders = `{"type":"string","enum":["ai_provider_1","ai_provider_3","ai_provider_4","ai_provider_5"]}`

// imagesSchema is ai.images.create's input. Sizes are the ones every
// image protocol here takes or maps (Gemini as an aspect ratio, Workers
// AI ignores it).
var imagesSchema = httpapi.Object([]string{"prompt"}, map[string]string{
	"prompt": httpapi.TextSchema(1, 4000), "provider": imageProviders, "model": modelSchema,
	"size": `{"type":"string","enum":["auto","1024x1024","1024x1536","1536x1024"]}`,
	"n":    `{"type":"integer","minimum":1,"maximum":4,"default":1}`, "app_id": appIDSchema, "use_case": useCaseSchema,
})

// ImagesAnswer is ai.images.create's answer: the images' bytes as base64.
type ImagesAnswer struct {
	gatewaycmd.Receipt
	Images       []ImageAnswer `json:"images"`
	ConnectionID string        `json:"connection_id"`
	Sandbox      bool          `json:"sandbox"`
}

// ImageAnswer is one generated image.
type ImageAnswer struct {
	MIMEType      string `json:"mime_type"`
	DataBase64    string `json:"data_base64"`
	URL           string `json:"url"`
	RevisedPrompt string `json:"revised_prompt"`
}

func imagesAction(d Deps) httpapi.Action {
	return aiAction("ai.images.create", "/api/ai/images", "ai:invoke",
		"Generate 1..4 images from a prompt, priced per image (the first configured provider that draws images unless one is named)",
		open(ImagesAnswer{}), imagesSchema, func(ctx context.Context, caller gatewaycmd.Caller, in gatewaycmd.ImageInput) (ImagesAnswer, error) {
			out, err := d.Client.GenerateImage(ctx, caller, in)
			if err != nil {
				return ImagesAnswer{}, err
			}
			answer := ImagesAnswer{Receipt: out.Receipt, Images: make([]ImageAnswer, 0, len(out.Images)), ConnectionID: out.ConnectionID, Sandbox: out.Sandbox}
			for _, img := range out.Images {
				answer.Images = append(answer.Images, ImageAnswer{MIMEType: img.MIMEType, DataBase64: base64.StdEncoding.EncodeToString(img.Data),
					URL: img.URL, RevisedPrompt: img.RevisedPrompt})
			}
			return answer, nil
		})
}
