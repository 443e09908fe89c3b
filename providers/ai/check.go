package ai

import (
	"encoding/json"
	"fmt"
)

// Require returns the unsupported error when caps lacks c.
func Require(protocol string, caps, c Capability) error {
	if !caps.Has(c) {
		return Unsupported(protocol, c)
	}
	return nil
}

// CheckCompletion refuses, before any network call, a completion the
// connection cannot run (unsupported features) or no provider could
// (malformed input). asked is CapChat or CapStream.
func CheckCompletion(protocol string, caps Capability, asked Capability, req CompletionRequest) error {
	if err := Require(protocol, caps, asked); err != nil {
		return err
	}
	if len(req.Tools) > 0 {
		if err := Require(protocol, caps, CapTools); err != nil {
			return err
		}
	}
	if req.ResponseFormat != nil {
		if err := Require(protocol, caps, CapStructuredOutput); err != nil {
			return err
		}
	}
	if req.HasImages() {
		if err := Require(protocol, caps, CapVision); err != nil {
			return err
		}
	}
	invalid := func(format string, a ...any) error { return Invalid(protocol, asked, fmt.Sprintf(format, a...)) }
	if len(req.Messages) == 0 {
		return invalid("no messages")
	}
	if req.MaxTokens < 0 {
		return invalid("max tokens below zero")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		case RoleTool:
			if m.ToolCallID == "" {
				return invalid("message %d: tool result without tool call id", i)
			}
		default:
			return invalid("message %d: unknown role", i)
		}
		for _, p := range m.Content {
			if p.Image != nil && (len(p.Image.Data) == 0 || p.Image.MIMEType == "") {
				return invalid("message %d: image without data or type", i)
			}
		}
		for _, tc := range m.ToolCalls {
			if tc.Name == "" || (len(tc.Arguments) > 0 && !isJSONObject(tc.Arguments)) {
				return invalid("message %d: tool call without name or with arguments that are not an object", i)
			}
		}
	}
	for i, t := range req.Tools {
		if t.Name == "" || (len(t.Parameters) > 0 && !isJSONObject(t.Parameters)) {
			return invalid("tool %d: no name, or parameters not a JSON object", i)
		}
	}
	if rf := req.ResponseFormat; rf != nil {
		if rf.Name == "" {
			return invalid("response format without name")
		}
		var root struct {
			Type any `json:"type"`
		}
		if json.Unmarshal(rf.Schema, &root) != nil || root.Type != "object" {
			return invalid("response format schema must be a JSON Schema of type object")
		}
	}
	return nil
}

func isJSONObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// ToolNameFor finds the name of the tool call id among the assistant turns
// before message i (protocols that key tool results by name need it).
func ToolNameFor(msgs []Message, i int) string {
	if msgs[i].Name != "" {
		return msgs[i].Name
	}
	for j := i - 1; j >= 0; j-- {
		for _, tc := range msgs[j].ToolCalls {
			if tc.ID == msgs[i].ToolCallID {
				return tc.Name
			}
		}
	}
	return ""
}
