package publishing

import (
	"context"
	"encoding/json"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/errs"
)

// gatewayAI is publishing's AI through the usage gateway's in-process
// client: metered, under the organization's spend caps, the gateway's 429
// with its Retry-After passed through.
type gatewayAI struct {
	client *gatewaycmd.Client
}

var _ pubcmd.AI = gatewayAI{}

func caller(organizationID, userID, useCase string) gatewaycmd.Caller {
	return gatewaycmd.Caller{OrganizationID: organizationID, PrincipalID: userID, PrincipalType: "user", AppID: "publishing", UseCase: useCase}
}

func (g gatewayAI) Write(ctx context.Context, organizationID, userID, system, prompt string, maxTokens int) (string, error) {
	sys, err := json.Marshal(system)
	if err != nil {
		return "", err
	}
	user, err := json.Marshal(prompt)
	if err != nil {
		return "", err
	}
	c, err := g.client.Complete(ctx, caller(organizationID, userID, "content_suggestions"), gatewaycmd.CompletionInput{
		Messages:  []gatewaycmd.MessageInput{{Role: "system", Content: sys}, {Role: "user", Content: user}},
		MaxTokens: maxTokens, AppID: "publishing", UseCase: "content_suggestions"})
	if err != nil {
		return "", err
	}
	return c.Text, nil
}

// GenerateImage draws one image through the gateway's metered image
// operation (priced per image, under the spend caps: a hard cap's 402
// passes through). A provider that answered only a URL gave publishing
// nothing to keep: the call is charged (the provider drew it) and answered
// as the provider's fault.
func (g gatewayAI) GenerateImage(ctx context.Context, organizationID, userID, prompt, size string) (pubcmd.GeneratedImage, error) {
	out, err := g.client.GenerateImage(ctx, caller(organizationID, userID, "image"), gatewaycmd.ImageInput{Prompt: prompt, Size: size,
		AppID: "publishing", UseCase: "image"})
	if err != nil {
		return pubcmd.GeneratedImage{}, err
	}
	for _, img := range out.Images {
		if len(img.Data) > 0 {
			return pubcmd.GeneratedImage{Data: img.Data, ContentType: img.MIMEType, Model: out.Model}, nil
		}
	}
	return pubcmd.GeneratedImage{}, errs.BadGateway("provider_error", "the provider "+out.Provider+" answered no image bytes", nil)
}
