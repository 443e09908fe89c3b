package publishing

import (
	"context"
	"strings"
)

// SandboxAI stands in for the usage gateway in a sandbox (PUBLISHING_SANDBOX)
// when no gateway module provides one: deterministic copy and a one-pixel
// PNG, unmetered. Never used outside the sandbox; the gateway's client
// replaces it when its module is listed.
type SandboxAI struct{}

var _ AI = SandboxAI{}

// onePixel is a valid 1x1 transparent PNG.
var onePixel = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89" +
	"\x00\x00\x00\rIDATx\x9cc\x00\x01\x00\x00\x05\x00\x01\r\n-\xb4\x00\x00\x00\x00IEND\xaeB`\x82")

func (SandboxAI) GenerateImage(context.Context, string, string, string, string) (GeneratedImage, error) {
	return GeneratedImage{Data: onePixel, ContentType: "image/png", Model: "sandbox"}, nil
}

func (SandboxAI) Write(_ context.Context, _, _, _, prompt string, _ int) (string, error) {
	line := prompt
	if i := strings.LastIndex(prompt, "\n1. "); i >= 0 {
		line = prompt[i+4:]
	}
	if j := strings.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	if line = strings.TrimSpace(line); line == "" {
		line = "something worth sharing"
	}
	return "New from us: " + line, nil
}
