package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/identity"
	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/schema"
)

// Authorization modes of seed 000.
const (
	AuthStatic  = "static"
	AuthRuntime = "runtime"
	AuthPublic  = "public"
)

// Action is seed 000's action descriptor plus the handler that serves it.
// The HTTP input check, the OpenAPI document and `platformctl actions` all
// read the same descriptor.
type Action struct {
	Name                 string          `json:"name"`
	Method               string          `json:"method"`
	Path                 string          `json:"path"`
	Permission           string          `json:"permission,omitempty"`
	Summary              string          `json:"summary,omitempty"`
	InputSchema          json.RawMessage `json:"inputSchema"`
	OutputSchema         json.RawMessage `json:"outputSchema"`
	ReadOnly             bool            `json:"readOnly"`
	Destructive          bool            `json:"destructive"`
	RequiresConfirmation bool            `json:"requiresConfirmation"`
	AgentAccess          string          `json:"agentAccess"`
	AuthorizationMode    string          `json:"authorizationMode"`
	AllowedServices      []string        `json:"allowedServices,omitempty"`

	// CredentialAttempt marks routes where each call tries a secret
	// (password, one-time token, second factor): they take from the
	// per-address attempt limit too.
	CredentialAttempt bool `json:"-"`
	// SuccessStatus is the status of a successful answer (default 200).
	SuccessStatus int `json:"-"`
	// ReadModel names the projection a query reads, for read-your-writes.
	ReadModel string      `json:"-"`
	Handle    HandlerFunc `json:"-"`

	input *jsonschema.Schema
}

// HandlerFunc decodes the call's input, calls one command or query, and
// returns what to encode.
type HandlerFunc func(ctx context.Context, c *Call) (Reply, error)

// Call is one authenticated, schema-checked invocation of an action.
type Call struct {
	Input     json.RawMessage
	Principal identity.Principal
	Meta      commands.Meta
	Request   *http.Request
}

// Decode reads the (already schema-checked) input into v.
func (c *Call) Decode(v any) error {
	if err := json.Unmarshal(c.Input, v); err != nil {
		return errs.InvalidField("", err.Error())
	}
	return nil
}

// Reply is what a handler answers.
type Reply struct {
	Body     any
	Position *eventstore.Position
	Replayed bool
	Header   http.Header
}

// OK answers a query.
func OK(body any) Reply { return Reply{Body: body} }

// FromResult answers a command with its position for read-your-writes.
func FromResult[T any](res commands.Result[T], err error) (Reply, error) {
	if err != nil {
		return Reply{}, err
	}
	pos := res.Position
	return Reply{Body: res.Value, Position: &pos, Replayed: res.Replayed}, nil
}

// noStore marks an answer that shows a secret (a new API key's token, shown
// once): no browser or proxy cache may keep it.
func noStore(r Reply, err error) (Reply, error) {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	r.Header.Set("Cache-Control", "no-store")
	return r, err
}

// withDefaults applies seed 000's rule: reads are auto and unconfirmed,
// mutations need confirmation.
func (a *Action) withDefaults() error {
	if a.ReadOnly {
		a.AgentAccess, a.RequiresConfirmation = "auto", false
	} else {
		a.AgentAccess, a.RequiresConfirmation = "confirm", true
	}
	if a.AuthorizationMode == "" {
		a.AuthorizationMode = AuthStatic
		if a.Permission == "" {
			a.AuthorizationMode = AuthPublic
		}
	}
	if a.SuccessStatus == 0 {
		a.SuccessStatus = http.StatusOK
	}
	if len(a.InputSchema) == 0 {
		a.InputSchema = EmptyObject
	}
	if len(a.OutputSchema) == 0 {
		a.OutputSchema = json.RawMessage(`{"type":"object"}`)
	}
	c := schema.NewCompiler()
	var doc any
	if err := json.Unmarshal(a.InputSchema, &doc); err != nil {
		return fmt.Errorf("action %s: input schema: %w", a.Name, err)
	}
	url := "action:" + a.Name + "/input.json"
	if err := c.AddResource(url, doc); err != nil {
		return fmt.Errorf("action %s: %w", a.Name, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return fmt.Errorf("action %s: input schema: %w", a.Name, err)
	}
	a.input = s
	return nil
}

// EmptyObject is the input schema of actions that take nothing.
var EmptyObject = json.RawMessage(`{"type":"object","additionalProperties":false}`)

// validateInput checks the assembled input against the action's schema.
func (a *Action) validateInput(doc []byte) error {
	problems := schema.Validate(a.input, doc)
	if len(problems) == 0 {
		return nil
	}
	fields := make([]errs.Field, len(problems))
	for i, p := range problems {
		fields[i] = errs.Field{Pointer: p.Pointer, Detail: p.Message}
	}
	return errs.Invalid(fields...)
}
