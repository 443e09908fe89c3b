package studio

import (
	"context"
	"encoding/json"

	gatewaycmd "github.com/platform/backend/commands/gateway"
	studiocmd "github.com/platform/backend/commands/studio"
	"github.com/platform/backend/domain/errs"
)

// gateway is the studio's generation jobs' gateway (studiocmd.Gateway)
// over the usage gateway's in-process client: metered as the studio's
// (app studio), charged to the requester's user, under the organization's
// spend caps, every call keyed (the gateway keeps its answer).
type gateway struct{ client *gatewaycmd.Client }

var _ studiocmd.Gateway = gateway{}

// Use cases of the studio's calls (usage events, caps by use case).
const (
	useCaseGeneration = "generation"
	useCasePlanning   = "planning"
)

func caller(c studiocmd.GatewayCall) gatewaycmd.Caller {
	useCase := useCasePlanning
	if c.Image {
		useCase = useCaseGeneration
	}
	return gatewaycmd.Caller{OrganizationID: c.OrganizationID, PrincipalID: c.ChargedTo, PrincipalType: "user", UserID: c.ChargedTo,
		AppID: studiocmd.AppID, UseCase: useCase}
}

func imageInput(c studiocmd.GatewayCall) gatewaycmd.ImageInput {
	return gatewaycmd.ImageInput{Prompt: c.Prompt, Provider: c.Provider, Model: c.Model, Size: "1024x1024", AppID: studiocmd.AppID,
		UseCase: useCaseGeneration, IdempotencyKey: c.Key}
}

func completionInput(c studiocmd.GatewayCall) gatewaycmd.CompletionInput {
	quote := func(s string) []byte { b, _ := jsonString(s); return b }
	in := gatewaycmd.CompletionInput{Provider: c.Provider, Model: c.Model, MaxTokens: c.MaxTokens, AppID: studiocmd.AppID,
		UseCase: useCasePlanning, IdempotencyKey: c.Key,
		Messages: []gatewaycmd.MessageInput{{Role: "system", Content: quote(c.System)}, {Role: "user", Content: quote(c.Prompt)}}}
	if len(c.Schema) > 0 {
		in.ResponseFormat = &gatewaycmd.ResponseFormatInput{Type: "json_schema"}
		in.ResponseFormat.JSONSchema.Name = "plan"
		in.ResponseFormat.JSONSchema.Schema = c.Schema
	}
	return in
}

func (g gateway) Image(ctx context.Context, c studiocmd.GatewayCall) (studiocmd.GeneratedImage, error) {
	out, err := g.client.GenerateImage(ctx, caller(c), imageInput(c))
	if err != nil {
		return studiocmd.GeneratedImage{}, err
	}
	for _, img := range out.Images {
		if len(img.Data) > 0 {
			return studiocmd.GeneratedImage{Data: img.Data, ContentType: img.MIMEType, Provider: out.Provider}, nil
		}
	}
	// Charged (the provider drew it) but nothing to keep: the provider's fault.
	return studiocmd.GeneratedImage{}, errs.BadGateway("provider_error", "the provider "+out.Provider+" answered no image bytes", nil)
}

func (g gateway) Complete(ctx context.Context, c studiocmd.GatewayCall) (studiocmd.Completion, error) {
	out, err := g.client.Complete(ctx, caller(c), completionInput(c))
	return studiocmd.Completion{Text: out.Text, Provider: out.Provider}, err
}

// Kept fingerprints each call as the client keeps it.
func (g gateway) Kept(ctx context.Context, calls []studiocmd.GatewayCall) (int, error) {
	if len(calls) == 0 {
		return -1, nil
	}
	keyed := make([]gatewaycmd.KeyedRequest, len(calls))
	for i, c := range calls {
		if c.Image {
			in := imageInput(c)
			in.IdempotencyKey = ""
			keyed[i] = gatewaycmd.KeyedRequest{Key: c.Key, Hash: gatewaycmd.RequestFingerprint("ai.images", in)}
		} else {
			in := completionInput(c)
			in.IdempotencyKey = ""
			keyed[i] = gatewaycmd.KeyedRequest{Key: c.Key, Hash: gatewaycmd.RequestFingerprint("ai.completions", in)}
		}
	}
	return g.client.FirstKept(ctx, calls[0].OrganizationID, keyed)
}

func jsonString(s string) ([]byte, error) { return json.Marshal(s) }
