package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
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
	// Streams: the action may answer server-sent events (text/event-stream)
	// instead of JSON (a streamed completion); the OpenAPI document says so.
	Streams bool `json:"streams,omitempty"`
	// Problems are statuses the action answers beyond the kernel's (402 of
	// a spend cap, 502 and 504 of an upstream provider), for the OpenAPI
	// document.
	Problems []int `json:"-"`
	// InvalidStatus answers invalid input with this status instead of 422
	// (0: 422): 400 where a seed's table says so (publishing's create).
	InvalidStatus int `json:"-"`
	// Errors, when set, writes the action's error answers in another API's
	// shape (dialect.go): the OpenAI- and Anthropic-compatible routes.
	Errors *ErrorDialect `json:"-"`

	// CredentialAttempt marks routes where each call tries a secret
	// (password, one-time token, second factor): they take from the
	// per-address attempt limit too.
	CredentialAttempt bool `json:"-"`
	// Inbound marks a public action third parties call without a platform
	// credential (a provider's webhook): it takes from the per-address
	// inbound limit (Deps.Inbound) before anything else runs.
	Inbound bool `json:"-"`
	// NoIdempotencyKey marks a mutation whose caller dedupes by its own id,
	// not by the platform's Idempotency-Key: a provider's webhook, recorded
	// once per provider event id. The OpenAPI document lists no such header
	// and the router ignores one sent anyway (neither checked nor recorded):
	// refusing a header a provider or its proxy may add would turn a
	// verified delivery into a 4xx that the provider retries forever.
	NoIdempotencyKey bool `json:"-"`
	// SuccessStatus is the status of a successful answer (default 200).
	SuccessStatus int `json:"-"`
	// ReadModel names the projection a query reads, for read-your-writes.
	// On a command it is the projection its answer waits for: the kernel
	// answers once that projection has applied the command's position (up
	// to projections.MaxWait; the answer is the command's either way), so a
	// read right after the command sees it without X-Platform-Min-Position
	// (a GET after a DELETE is a 404).
	ReadModel string `json:"-"`
	// Body, when set, is a request body that is not JSON input (body.go).
	Body *RawBody `json:"-"`
	// Produces, when set, is the media type of an answer written as
	// Reply.Content: text/csv, or */* for stored files served with their
	// own type. The output schema then describes that body.
	Produces string      `json:"-"`
	Handle   HandlerFunc `json:"-"`

	input, output *jsonschema.Schema
	quick         *quickCheck  // the input schema's fast acceptance, nil when beyond it
	inputType     reflect.Type // set by Command and Query
}

// HandlerFunc decodes the call's input, calls one command or query, and
// returns what to encode.
type HandlerFunc func(ctx context.Context, c *Call) (Reply, error)

// Call is one authenticated, schema-checked invocation of an action.
type Call struct {
	Input     json.RawMessage
	Principal principal.Principal
	Meta      commands.Meta
	Request   *http.Request
	// Body is the request body of an action with a RawBody (nil otherwise),
	// bounded and with typed read errors; MediaType is its Content-Type
	// without parameters.
	Body      io.Reader
	MediaType string
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
	Body any
	// Stream, when set, is the answer instead of Body: server-sent events
	// written as they are produced (stream.go).
	Stream   EventStream
	Position *eventstore.Position
	Replayed bool
	Header   http.Header
	// Content, when set, writes the answer's body instead of Body (a CSV
	// export, a stored file), as ContentType, after the kernel has set the
	// headers; the status is written with its first byte (content.go).
	Content     func(w io.Writer) error
	ContentType string
}

// OK answers a query.
func OK(body any) Reply { return Reply{Body: body} }

// FromResult answers a command with its position for read-your-writes.
func FromResult[T any](res commands.Result[T], err error) (Reply, error) {
	if err != nil {
		return Reply{}, err
	}
	pos := res.Position
	var body any = res.Value
	if res.Encoded != nil {
		body = encodedAnswer(res.Encoded)
	}
	return Reply{Body: body, Position: &pos, Replayed: res.Replayed}, nil
}

// encodedAnswer is a command's answer as commands.Run encoded it
// (Result.Encoded): written as it is, not encoded again from the value
// (a reflective encoding of each answer). It encodes to itself wherever a
// body is encoded (the output check, a body that wraps it).
type encodedAnswer json.RawMessage

func (e encodedAnswer) MarshalJSON() ([]byte, error) { return e, nil }

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
	if a.Errors != nil && a.InvalidStatus == 0 {
		a.InvalidStatus = a.Errors.InvalidStatus
	}
	if len(a.InputSchema) == 0 {
		a.InputSchema = EmptyObject
	}
	if len(a.OutputSchema) == 0 {
		// Every action declares its answer (TestEveryActionDeclaresItsOutput).
		return fmt.Errorf("action %s: no output schema", a.Name)
	}
	a.InputSchema = refuseNUL(a.InputSchema)
	var err error
	if a.input, err = compileSchema(a.Name, "input", a.InputSchema); err != nil {
		return err
	}
	a.quick = compileQuickCheck(a.InputSchema)
	a.output, err = compileSchema(a.Name, "output", a.OutputSchema)
	return err
}

func compileSchema(action, which string, raw json.RawMessage) (*jsonschema.Schema, error) {
	c := schema.NewCompiler()
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("action %s: %s schema: %w", action, which, err)
	}
	url := "action:" + action + "/" + which + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("action %s: %w", action, err)
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("action %s: %s schema: %w", action, which, err)
	}
	return s, nil
}

// refuseNUL says in the input schema what the kernel enforces for every
// action (nulFields): no string holds U+0000. A string member without a
// pattern, enum, const or format gets one refusing it, so that the schema a
// client or a fuzzer reads admits only what the server takes.
func refuseNUL(raw json.RawMessage) json.RawMessage {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return raw
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			_, hasPattern := v["pattern"]
			_, hasEnum := v["enum"]
			_, hasConst := v["const"]
			_, hasFormat := v["format"]
			if isStringType(v["type"]) && !hasPattern && !hasEnum && !hasConst && !hasFormat {
				v["pattern"] = "^[^\x00]*$"
			}
			for _, m := range v {
				walk(m)
			}
		case []any:
			for _, m := range v {
				walk(m)
			}
		}
	}
	walk(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return raw
	}
	return out
}

func isStringType(t any) bool {
	switch t := t.(type) {
	case string:
		return t == "string"
	case []any:
		for _, x := range t {
			if x == "string" {
				return true
			}
		}
	}
	return false
}

// checkOutput validates a success answer's body against the action's output
// schema: the debug check of Deps.CheckOutput. Problems name the failing
// members as JSON pointers.
func (a *Action) checkOutput(body any) error {
	doc, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("action %s: encode answer: %w", a.Name, err)
	}
	problems := schema.Validate(a.output, doc)
	if len(problems) == 0 {
		return nil
	}
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Pointer + ": " + p.Message
	}
	return fmt.Errorf("action %s: the answer does not match its output schema: %s (answer %.2000s)", a.Name, strings.Join(msgs, "; "), doc)
}

// EmptyObject is the input schema of actions that take nothing.
var EmptyObject = json.RawMessage(`{"type":"object","additionalProperties":false}`)

// validateInput checks the assembled input against the action's schema:
// value, when assembleInput gives it, is doc already decoded.
func (a *Action) validateInput(doc []byte, value any) error {
	var problems []schema.Problem
	if value != nil && a.quick != nil && a.quick.accepts(value) {
		return nil
	}
	if value != nil {
		problems = schema.ValidateValue(a.input, value)
	} else {
		problems = schema.Validate(a.input, doc)
	}
	if len(problems) == 0 {
		return nil
	}
	fields := make([]errs.Field, len(problems))
	for i, p := range problems {
		fields[i] = errs.Field{Pointer: p.Pointer, Detail: p.Message}
	}
	return errs.Invalid(fields...)
}
