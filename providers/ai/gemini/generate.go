package gemini

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/platform/backend/providers/ai"
)

// Complete runs models/{model}:generateContent.
func (c *Client) Complete(ctx context.Context, req ai.CompletionRequest) (*ai.CompletionResponse, error) {
	model, body, err := c.generateRequest(ai.CapChat, req)
	if err != nil {
		return nil, err
	}
	var resp generateResponse
	meta, err := c.call.Do(ctx, c.request(ai.CapChat, model, "generateContent", body), &resp)
	if err != nil {
		return nil, err
	}
	out := &ai.CompletionResponse{Model: ai.Pick(resp.ModelVersion, model), RequestID: resp.ResponseID}
	if len(resp.Candidates) == 0 {
		if resp.PromptFeedback != nil && resp.PromptFeedback.BlockReason != "" {
			out.FinishReason = ai.FinishContentFilter // the prompt was blocked: an answer, empty
		} else {
			return nil, c.call.Fault(ai.CapChat, meta, "answer without candidates")
		}
	} else {
		cand := resp.Candidates[0]
		for i, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				tc := toolCall(*p.FunctionCall, i)
				tc.Signature = p.ThoughtSignature
				out.ToolCalls = append(out.ToolCalls, tc)
			case !p.Thought:
				out.Text += p.Text
			}
		}
		out.FinishReason = finishReason(cand.FinishReason, len(out.ToolCalls) > 0)
	}
	if resp.UsageMetadata != nil {
		out.Usage = resp.UsageMetadata.usage()
	} else {
		out.UsageMissing = true
	}
	return out, nil
}

// toolCall names a call: the API's id when it gives one, else one made from
// the name and the part's position (stable across the turn, which is all a
// tool result needs to point back to it).
func toolCall(fc functionCall, i int) ai.ToolCall {
	id := fc.ID
	if id == "" {
		id = fc.Name + "-" + strconv.Itoa(i)
	}
	args := fc.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	return ai.ToolCall{ID: id, Name: fc.Name, Arguments: args}
}

// generateRequest checks req and writes it the protocol's way: system turns
// into systemInstruction, assistant turns as role "model", tool results as
// functionResponse parts in a user turn, adjacent turns of one role merged.
func (c *Client) generateRequest(asked ai.Capability, req ai.CompletionRequest) (string, generateRequest, error) {
	if err := ai.CheckCompletion(ai.ProtocolGemini, c.conn.Capabilities, asked, req); err != nil {
		return "", generateRequest{}, err
	}
	model := c.models.ForCompletion(req)
	if model == "" {
		return "", generateRequest{}, ai.Invalid(ai.ProtocolGemini, asked, "no model")
	}
	var out generateRequest
	var system []part
	for i, m := range req.Messages {
		var role string
		var parts []part
		switch m.Role {
		case ai.RoleSystem:
			system = append(system, part{Text: m.TextOf()})
			continue
		case ai.RoleTool:
			role = "user"
			name := ai.ToolNameFor(req.Messages, i)
			if name == "" {
				return "", generateRequest{}, ai.Invalid(ai.ProtocolGemini, asked, "tool result for an unknown call")
			}
			parts = []part{{FunctionResponse: &functionResponse{Name: name, Response: toolResponse(m.TextOf())}}}
		case ai.RoleAssistant:
			role = "model"
			parts = contentParts(m)
		default:
			role = "user"
			parts = contentParts(m)
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(out.Contents); n > 0 && out.Contents[n-1].Role == role {
			out.Contents[n-1].Parts = append(out.Contents[n-1].Parts, parts...)
			continue
		}
		out.Contents = append(out.Contents, content{Role: role, Parts: parts})
	}
	if len(out.Contents) == 0 {
		return "", generateRequest{}, ai.Invalid(ai.ProtocolGemini, asked, "no user or assistant message")
	}
	if len(system) > 0 {
		out.SystemInstruction = &content{Parts: system}
	}
	if len(req.Tools) > 0 {
		var decls []functionDeclaration
		for _, t := range req.Tools {
			decls = append(decls, functionDeclaration{Name: t.Name, Description: t.Description, Parameters: Schema(t.Parameters)})
		}
		out.Tools = []toolSet{{FunctionDeclarations: decls}}
	}
	gc := generationConfig{MaxOutputTokens: req.MaxTokens, Temperature: req.Temperature}
	if rf := req.ResponseFormat; rf != nil {
		gc.ResponseMIMEType, gc.ResponseSchema = "application/json", Schema(rf.Schema)
	}
	if gc.MaxOutputTokens != 0 || gc.Temperature != nil || gc.ResponseMIMEType != "" {
		out.GenerationConfig = &gc
	}
	return model, out, nil
}

func contentParts(m ai.Message) []part {
	var out []part
	for _, p := range m.Content {
		switch {
		case p.Image != nil:
			out = append(out, part{InlineData: &inlineData{MIMEType: p.Image.MIMEType, Data: base64.StdEncoding.EncodeToString(p.Image.Data)}})
		case p.Text != "":
			out = append(out, part{Text: p.Text})
		}
	}
	for _, tc := range m.ToolCalls {
		out = append(out, part{FunctionCall: &functionCall{Name: tc.Name, Args: tc.Arguments}, ThoughtSignature: tc.Signature})
	}
	return out
}

// toolResponse: the API wants an object; a result that is not one is
// wrapped as {"result": ...}.
func toolResponse(text string) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &obj) == nil && obj != nil {
		return json.RawMessage(text)
	}
	b, _ := json.Marshal(map[string]string{"result": text})
	return b
}

func finishReason(s string, toolCalls bool) ai.FinishReason {
	switch s {
	case "":
		return ""
	case "STOP":
		if toolCalls {
			return ai.FinishToolCalls
		}
		return ai.FinishStop
	case "MAX_TOKENS":
		return ai.FinishLength
	case "SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY":
		return ai.FinishContentFilter
	default:
		return ai.FinishOther
	}
}
