// Package contracts holds the notification contracts of the seeds as JSON Schema files and checks
// notifications against them before anything is emitted.
//
// The schema files are the source of truth: each carries its contract descriptor in the top-level
// member "x-contract", so a contract and its payload schema can never drift apart across files.
package contracts

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/platform/backend/internal/schema"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// Contract is one versioned notification type and its descriptor.
type Contract struct {
	Type                  string
	Version               int
	Status                string
	RecipientsMode        string
	ExternalAddresses     string
	DataClassification    string
	Idempotency           string
	IdempotencyKeyPattern *regexp.Regexp
	SensitiveFields       []string
	CompatibilityDate     string

	schema *jsonschema.Schema
	fast   *fastSchema // nil: the schema uses a keyword compileFast does not know
}

// Registry holds every embedded contract. It is read-only after Load, so it is safe for concurrent use.
type Registry struct {
	contracts map[string]Contract
	raw       map[string][]byte
}

// descriptor mirrors the "x-contract" member of a schema file.
type descriptor struct {
	Type                  string   `json:"type"`
	Version               int      `json:"version"`
	Status                string   `json:"status"`
	RecipientsMode        string   `json:"recipientsMode"`
	ExternalAddresses     string   `json:"externalAddresses"`
	DataClassification    string   `json:"dataClassification"`
	Idempotency           string   `json:"idempotency"`
	IdempotencyKeyPattern string   `json:"idempotencyKeyPattern"`
	SensitiveFields       []string `json:"sensitiveFields"`
	CompatibilityDate     string   `json:"compatibilityDate"`
}

// Load compiles all embedded schemas. Format assertions are on: by default draft 2020-12 only
// annotates "format", which would let a bad date-time or URI through.
func Load() (*Registry, error) {
	names, err := schemaFiles.ReadDir("schemas")
	if err != nil {
		return nil, err
	}
	c := schema.NewCompiler()

	r := &Registry{contracts: map[string]Contract{}, raw: map[string][]byte{}}
	for _, n := range names {
		file := path.Join("schemas", n.Name())
		raw, err := schemaFiles.ReadFile(file)
		if err != nil {
			return nil, err
		}
		ct, err := loadOne(c, file, raw)
		if err != nil {
			return nil, fmt.Errorf("contracts: %s: %w", file, err)
		}
		if ct.Type+".json" != n.Name() {
			return nil, fmt.Errorf("contracts: %s: x-contract type %q does not match the file name", file, ct.Type)
		}
		r.contracts[ct.Type] = ct
		r.raw[ct.Type] = raw
	}
	return r, nil
}

func loadOne(c *jsonschema.Compiler, file string, raw []byte) (Contract, error) {
	var head struct {
		Contract   *descriptor                `json:"x-contract"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Contract{}, err
	}
	d := head.Contract
	if d == nil || d.Type == "" || d.Version < 1 || d.IdempotencyKeyPattern == "" {
		return Contract{}, fmt.Errorf("incomplete x-contract descriptor")
	}
	// A sensitive field that is not a payload member would silently never be masked.
	for _, f := range d.SensitiveFields {
		if _, ok := head.Properties[f]; !ok {
			return Contract{}, fmt.Errorf("sensitive field %q is not a payload member", f)
		}
	}
	re, err := regexp.Compile(d.IdempotencyKeyPattern)
	if err != nil {
		return Contract{}, fmt.Errorf("idempotency key pattern: %w", err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return Contract{}, err
	}
	url := "embed:///" + file
	if err := c.AddResource(url, doc); err != nil {
		return Contract{}, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		return Contract{}, err
	}
	fast, _ := compileFast(raw) // nil when it cannot: the generic validator alone
	return Contract{
		Type:                  d.Type,
		Version:               d.Version,
		Status:                d.Status,
		RecipientsMode:        d.RecipientsMode,
		ExternalAddresses:     d.ExternalAddresses,
		DataClassification:    d.DataClassification,
		Idempotency:           d.Idempotency,
		IdempotencyKeyPattern: re,
		SensitiveFields:       append([]string{}, d.SensitiveFields...),
		CompatibilityDate:     d.CompatibilityDate,
		schema:                sch,
		fast:                  fast,
	}, nil
}

// Get returns the contract of a notification type.
func (r *Registry) Get(typ string) (Contract, bool) {
	c, ok := r.contracts[typ]
	if ok {
		// Callers must not be able to change the registry through the shared slice.
		c.SensitiveFields = append([]string{}, c.SensitiveFields...)
	}
	return c, ok
}

// Types returns the known notification types, sorted.
func (r *Registry) Types() []string {
	types := make([]string, 0, len(r.contracts))
	for t := range r.contracts {
		types = append(types, t)
	}
	sort.Strings(types)
	return types
}

// RawSchema returns the schema file bytes.
func (r *Registry) RawSchema(typ string) ([]byte, bool) {
	raw, ok := r.raw[typ]
	if !ok {
		return nil, false
	}
	return bytes.Clone(raw), true
}

// Validate checks the idempotency key against the pattern and the payload against the schema.
// It returns nil or a *ValidationError listing every problem found, so that a dead-lettered
// notification carries the whole reason at once.
func (r *Registry) Validate(typ, idempotencyKey string, payload []byte) error {
	return r.check(typ, idempotencyKey, func(s *jsonschema.Schema) []Problem { return schema.Validate(s, payload) })
}

// ValidateValue is Validate for a payload not yet encoded, with the same
// verdict and the same problems as Validate on its encoding. A payload the
// contract's compiled check (fastSchema) finds surely valid is answered at
// once; any other goes through validateValue, the generic validator, which
// gives the verdict and writes every problem.
func (r *Registry) ValidateValue(typ, idempotencyKey string, payload any) error {
	if c, ok := r.contracts[typ]; ok && c.fast != nil && c.IdempotencyKeyPattern.MatchString(idempotencyKey) && c.fast.valid(payload) {
		return nil
	}
	return r.validateValue(typ, idempotencyKey, payload)
}

// validateValue checks the payload as the JSON values it encodes to
// (schema.JSONValue) without encoding and parsing it again, or encodes it
// first when it holds a value whose encoding that does not know.
func (r *Registry) validateValue(typ, idempotencyKey string, payload any) error {
	if v, ok := schema.JSONValue(payload); ok {
		return r.check(typ, idempotencyKey, func(s *jsonschema.Schema) []Problem { return schema.ValidateValue(s, v) })
	}
	raw, err := json.Marshal(payload)
	if err != nil {
		return &ValidationError{Type: typ, Problems: []Problem{{Message: "the payload does not encode: " + err.Error()}}}
	}
	return r.Validate(typ, idempotencyKey, raw)
}

func (r *Registry) check(typ, idempotencyKey string, validate func(*jsonschema.Schema) []Problem) error {
	c, ok := r.contracts[typ]
	if !ok {
		return &ValidationError{Type: typ, Problems: []Problem{{Message: "unknown notification type"}}}
	}
	var problems []Problem
	if !c.IdempotencyKeyPattern.MatchString(idempotencyKey) {
		problems = append(problems, Problem{
			Message: fmt.Sprintf("idempotency key %q does not match %s", idempotencyKey, c.IdempotencyKeyPattern),
		})
	}
	problems = append(problems, validate(c.schema)...)
	if len(problems) == 0 {
		return nil
	}
	return &ValidationError{Type: typ, Problems: problems}
}

// ValidationError reports why a notification does not satisfy its contract.
type ValidationError struct {
	Type     string
	Problems []Problem
}

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		if p.Pointer == "" {
			msgs[i] = p.Message
		} else {
			msgs[i] = p.Pointer + ": " + p.Message
		}
	}
	return fmt.Sprintf("notification %s: %s", e.Type, strings.Join(msgs, "; "))
}

// Problem is one violation. Pointer is the JSON pointer of the failing member ("" for the
// payload root or the idempotency key).
type Problem = schema.Problem
