package agent

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Bounds of the assistant.
const (
	MaxPersonas        = 20
	MaxPersonaActions  = 5
	MaxLinkLabel       = 80
	MaxGreeting        = 500
	MaxPersonaPrompt   = 4000
	MaxQuestion        = 2000
	MaxAnswer          = 8000
	MaxSessionMessages = 200
)

// PersonaIDPattern is a persona's id: a slug the website names.
const PersonaIDPattern = `^[a-z0-9][a-z0-9-]{0,39}$`

var personaID = regexp.MustCompile(PersonaIDPattern)

// DefaultPersona is the persona of an organization that set up none.
var DefaultPersona = Persona{ID: "assistant", Name: "Assistant",
	Greeting: "Hello! Ask me anything about us: I answer from our own documents."}

// Link is an action or deeplink offered beside an answer.
type Link struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// Persona is one voice of an organization's public assistant: its name,
// greeting, instructions to the model, and the actions offered with its
// answers (book a demo, contact sales).
type Persona struct {
	ID           string `json:"personaId"`
	Name         string `json:"name"`
	Greeting     string `json:"greeting"`
	Instructions string `json:"instructions"`
	Actions      []Link `json:"actions"`
	Default      bool   `json:"default"`
}

// PersonaSavedV1 is a persona created or changed.
type PersonaSavedV1 struct {
	Persona Persona   `json:"persona"`
	At      time.Time `json:"at"`
}

// PersonaRemovedV1 is a persona removed.
type PersonaRemovedV1 struct {
	PersonaID string    `json:"persona_id"`
	At        time.Time `json:"at"`
}

// Assistant is the write model of an organization's assistant: its personas.
type Assistant struct {
	personas map[string]Persona
}

// LoadAssistant folds an organization's assistant stream.
func LoadAssistant(history []event.Recorded) (*Assistant, error) {
	return assistantFold.Load(&Assistant{personas: map[string]Persona{}}, history)
}

var assistantFold = event.Fold[*Assistant]{
	PersonaSaved: event.Apply(func(a *Assistant, p PersonaSavedV1) {
		if p.Persona.Default {
			for id, q := range a.personas {
				q.Default = false
				a.personas[id] = q
			}
		}
		a.personas[p.Persona.ID] = p.Persona
	}),
	PersonaRemoved: event.Apply(func(a *Assistant, p PersonaRemovedV1) { delete(a.personas, p.PersonaID) }),
}

// Personas are the assistant's personas by id; with none, the default one.
func (a *Assistant) Personas() []Persona {
	out := make([]Persona, 0, len(a.personas))
	for _, p := range a.personas {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) == 0 {
		d := DefaultPersona
		d.Default, d.Actions = true, []Link{}
		return []Persona{d}
	}
	if !slices.ContainsFunc(out, func(p Persona) bool { return p.Default }) {
		out[0].Default = true
	}
	return out
}

// Choose is the persona a visitor asks for ("": the default one); an
// unknown one is refused at pointer.
func (a *Assistant) Choose(pointer, id string) (Persona, error) {
	for _, p := range a.Personas() {
		if p.ID == id || id == "" && p.Default {
			return p, nil
		}
	}
	return Persona{}, errs.InvalidField(pointer, "no such persona")
}

// PersonaInput is a persona as an administrator writes it.
type PersonaInput struct {
	PersonaID    string `json:"personaId"`
	Name         string `json:"name"`
	Greeting     string `json:"greeting"`
	Instructions string `json:"instructions"`
	Actions      []Link `json:"actions"`
	Default      bool   `json:"default"`
}

// Save creates or changes a persona.
func (a *Assistant) Save(in PersonaInput, now time.Time) ([]event.Change, Persona, error) {
	p := Persona{ID: in.PersonaID, Name: text.Trim(in.Name), Greeting: strings.TrimSpace(in.Greeting),
		Instructions: strings.TrimSpace(in.Instructions), Actions: in.Actions, Default: in.Default}
	if p.Actions == nil {
		p.Actions = []Link{}
	}
	var f []errs.Field
	if !personaID.MatchString(p.ID) {
		f = append(f, errs.Field{Pointer: "/personaId", Detail: "lowercase letters, digits and dashes, at most 40"})
	}
	if p.Name == "" {
		f = append(f, errs.Field{Pointer: "/name", Detail: "a persona needs a name"})
	}
	f = text.Line(f, "/name", p.Name, text.MaxTitle)
	f = text.MultiLine(f, "/greeting", p.Greeting, MaxGreeting)
	f = text.MultiLine(f, "/instructions", p.Instructions, MaxPersonaPrompt)
	if len(p.Actions) > MaxPersonaActions {
		f = append(f, errs.Field{Pointer: "/actions", Detail: "at most 5 actions"})
	}
	for i, l := range p.Actions {
		at := "/actions/" + strconv.Itoa(i)
		if text.Trim(l.Label) == "" {
			f = append(f, errs.Field{Pointer: at + "/label", Detail: "an action needs a label"})
		}
		f = text.Line(f, at+"/label", l.Label, MaxLinkLabel)
		if l.URL == "" {
			f = append(f, errs.Field{Pointer: at + "/url", Detail: "an action needs a URL"})
		}
		f = CheckLink(f, at+"/url", l.URL)
	}
	if _, exists := a.personas[p.ID]; !exists && len(a.personas) >= MaxPersonas {
		f = append(f, errs.Field{Pointer: "/personaId", Detail: "an organization has at most 20 personas"})
	}
	if len(f) > 0 {
		return nil, Persona{}, errs.Invalid(f...)
	}
	if old, ok := a.personas[p.ID]; ok && old.Name == p.Name && old.Greeting == p.Greeting && old.Instructions == p.Instructions &&
		slices.Equal(old.Actions, p.Actions) && old.Default == p.Default {
		return nil, old, nil
	}
	return []event.Change{event.New(PersonaSaved, PersonaSavedV1{Persona: p, At: now})}, p, nil
}

// Remove removes a persona.
func (a *Assistant) Remove(id string, now time.Time) ([]event.Change, error) {
	if _, ok := a.personas[id]; !ok {
		return nil, errs.NotFound("persona")
	}
	return []event.Change{event.New(PersonaRemoved, PersonaRemovedV1{PersonaID: id, At: now})}, nil
}

// SourceRef is a document an answer cites.
type SourceRef struct {
	DocumentID string `json:"documentId"`
	Title      string `json:"title"`
	URL        string `json:"url"`
}

// ChatStartedV1 is a visitor's chat session started with a persona.
type ChatStartedV1 struct {
	SessionID string    `json:"session_id"`
	PersonaID string    `json:"persona_id"`
	At        time.Time `json:"at"`
}

// ChatVerifiedV1 is a session cleared by the human-verification provider:
// the challenge was verified on the server, and bound to this session.
type ChatVerifiedV1 struct {
	SessionID string    `json:"session_id"`
	Provider  string    `json:"provider"`
	Hostname  string    `json:"hostname,omitempty"`
	At        time.Time `json:"at"`
}

// ChatRefusedV1 is a challenge the provider refused.
type ChatRefusedV1 struct {
	SessionID string    `json:"session_id"`
	Provider  string    `json:"provider"`
	Codes     []string  `json:"codes"`
	At        time.Time `json:"at"`
}

// ChatAnsweredV1 is one question and its answer.
type ChatAnsweredV1 struct {
	SessionID string      `json:"session_id"`
	Question  string      `json:"question"`
	Answer    string      `json:"answer"`
	Grounded  bool        `json:"grounded"`
	Sources   []SourceRef `json:"sources"`
	At        time.Time   `json:"at"`
}

// ChatSession is the write model of a chat session.
type ChatSession struct {
	ID         string
	PersonaID  string
	Verified   bool
	VerifiedAt time.Time
	Messages   int
	StartedAt  time.Time
}

// LoadChat folds a chat session's stream.
func LoadChat(history []event.Recorded) (*ChatSession, error) {
	return chatFold.Load(&ChatSession{}, history)
}

var chatFold = event.Fold[*ChatSession]{
	ChatStarted: event.Apply(func(s *ChatSession, p ChatStartedV1) {
		*s = ChatSession{ID: p.SessionID, PersonaID: p.PersonaID, StartedAt: p.At}
	}),
	ChatVerified: event.Apply(func(s *ChatSession, p ChatVerifiedV1) { s.Verified, s.VerifiedAt = true, p.At }),
	ChatAnswered: event.Mark(func(s *ChatSession) { s.Messages++ }),
}

// Start begins a session (once).
func (s *ChatSession) Start(id, personaID string, now time.Time) []event.Change {
	if s.ID != "" {
		return nil
	}
	return []event.Change{event.New(ChatStarted, ChatStartedV1{SessionID: id, PersonaID: personaID, At: now})}
}

// Live: started, and younger than ttl.
func (s *ChatSession) Live(ttl time.Duration, now time.Time) bool {
	return s.ID != "" && now.Sub(s.StartedAt) < ttl
}

// Verify records the provider's verdict on the session's challenge. A
// session verified once stays verified (a visitor is not asked again in
// one conversation); a refused challenge leaves it unverified.
func (s *ChatSession) Verify(provider string, ok bool, hostname string, codes []string, now time.Time) []event.Change {
	if s.Verified {
		return nil
	}
	if ok {
		return []event.Change{event.New(ChatVerified, ChatVerifiedV1{SessionID: s.ID, Provider: provider, Hostname: hostname, At: now})}
	}
	if codes == nil {
		codes = []string{}
	}
	return []event.Change{event.New(ChatVerificationFail, ChatRefusedV1{SessionID: s.ID, Provider: provider, Codes: codes, At: now})}
}

// Ask checks that the session may ask: verified, live, and not over its
// messages.
func (s *ChatSession) Ask(ttl time.Duration, now time.Time) error {
	switch {
	case s.ID == "":
		return errs.NotFound("chat session")
	case !s.Live(ttl, now):
		return Denied("session_expired", "the chat session has expired: start a new one")
	case !s.Verified:
		return Denied("verification_required", "the chat session has not passed the human-verification challenge: send its token in verification.token")
	case s.Messages >= MaxSessionMessages:
		return errs.Conflict("session_exhausted", "the chat session has reached its message limit: start a new one")
	}
	return nil
}

// Answer records a question and its answer.
func (s *ChatSession) Answer(question, answer string, grounded bool, sources []SourceRef, now time.Time) []event.Change {
	if sources == nil {
		sources = []SourceRef{}
	}
	return []event.Change{event.New(ChatAnswered, ChatAnsweredV1{SessionID: s.ID, Question: question, Answer: bound(answer, MaxAnswer),
		Grounded: grounded, Sources: sources, At: now})}
}

// Denied is a 403 with a code more precise than permission_denied.
func Denied(code, message string) *errs.Error {
	return &errs.Error{Kind: errs.KindPermissionDenied, Code: code, Message: message}
}
