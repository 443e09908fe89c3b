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
	// images draws images while the gateway's client offers no metered
	// image generation: the sandbox's stand-in in a sandbox, else nil (503).
	images pubcmd.AI
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

func (g gatewayAI) GenerateImage(ctx context.Context, organizationID, userID, prompt, size string) (pubcmd.GeneratedImage, error) {
	if g.images == nil {
		return pubcmd.GeneratedImage{}, errs.Unavailable("publishing: the usage gateway offers no image generation yet", nil)
	}
	return g.images.GenerateImage(ctx, organizationID, userID, prompt, size)
}
