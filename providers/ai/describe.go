package ai

import (
	"context"
	"net/http"
	"strings"
)

// ImageDescriptionRequest is the seed's ai.image.describe as a provider call:
// a completion with one image and a prompt, on any protocol with CapVision.
type ImageDescriptionRequest struct {
	Model     string
	Image     Image // MIMEType sniffed from the bytes when empty
	Prompt    string
	MaxTokens int // the seed allows 1..2048
}

// DefaultDescribePrompt is used when the request has no prompt.
const DefaultDescribePrompt = "Describe this image in a few sentences: what it shows, its text if any, and its style."

// DescriptionCompletion builds the completion that describes an image.
func DescriptionCompletion(req ImageDescriptionRequest) CompletionRequest {
	img := req.Image
	if img.MIMEType == "" && len(img.Data) > 0 {
		img.MIMEType = http.DetectContentType(img.Data)
		if i := strings.IndexByte(img.MIMEType, ';'); i >= 0 {
			img.MIMEType = img.MIMEType[:i]
		}
	}
	return CompletionRequest{
		Model:     req.Model,
		MaxTokens: req.MaxTokens,
		Messages: []Message{{Role: RoleUser, Content: []Part{
			{Image: &img},
			{Text: Pick(req.Prompt, DefaultDescribePrompt)},
		}}},
	}
}

// DescribeImage describes an image on p.
func DescribeImage(ctx context.Context, p Provider, req ImageDescriptionRequest) (*CompletionResponse, error) {
	if err := Require(p.Protocol(), p.Capabilities(), CapVision); err != nil {
		return nil, err
	}
	return p.Complete(ctx, DescriptionCompletion(req))
}
