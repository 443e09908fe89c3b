package contacts

import (
	"encoding/json"

	contactscmd "github.com/platform/backend/commands/contacts"
	domain "github.com/platform/backend/domain/contacts"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	contactsview "github.com/platform/backend/projections/contacts"
)

// Input members (limits: domain/text; rules: domain/contacts, said here so
// that what the schema admits the service takes).
var (
	nameSchema    = httpapi.LineSchema(0, text.MaxTitle)
	emailSchema   = httpapi.StringSchema(0, text.MaxEmail, domain.EmailPattern, nil)
	phoneSchema   = httpapi.LineSchema(0, text.MaxPhone)
	tagsSchema    = `{"type":"array","maxItems":` + itoa(domain.MaxTags) + `,"items":` + httpapi.LineSchema(0, text.MaxTag) + `}`
	stageSchema   = enum(stageIDs()...)
	noteSchema    = httpapi.StringSchema(1, text.MaxMessage, domain.NoteBodyPattern, nil)
	idSchema      = httpapi.NonEmptyID
	cursorSchema  = httpapi.PatternSchema(512, `^[A-Za-z0-9_-]*$`)
	limitSchema   = `{"type":"integer","minimum":1,"maximum":200}`
	booleanSchema = `{"type":"boolean"}`
)

// contactMembers are the editable members of contacts.create and .update.
func contactMembers(extra map[string]string) map[string]string {
	m := map[string]string{"firstName": nameSchema, "lastName": nameSchema, "email": emailSchema, "phone": phoneSchema,
		"company": nameSchema, "jobTitle": nameSchema, "tags": tagsSchema}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// needsAName says domain.Fields' rule: a contact has a name, an email or a
// company (a member that is not only spaces).
func needsAName(schema json.RawMessage) json.RawMessage {
	var s map[string]any
	_ = json.Unmarshal(schema, &s)
	var anyOf []any
	for _, member := range []string{"firstName", "lastName", "email", "company"} {
		anyOf = append(anyOf, map[string]any{"required": []string{member},
			"properties": map[string]any{member: map[string]any{"pattern": "[^ ]"}}})
	}
	s["anyOf"] = anyOf
	out, _ := json.Marshal(s)
	return out
}

func stageIDs() []string {
	var out []string
	for _, s := range domain.DefaultPipeline("").Stages {
		out = append(out, s.StageID)
	}
	return out
}

func enum(values ...string) string {
	raw, _ := json.Marshal(map[string]any{"type": "string", "enum": values})
	return string(raw)
}

func itoa(n int) string { raw, _ := json.Marshal(n); return string(raw) }

// importQuery is contacts.import's query: options and the column mapping.
func importQuery() json.RawMessage {
	props := map[string]string{
		"importId": httpapi.PatternSchema(64, `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`),
		"dryRun":   booleanSchema, "onMatch": enum(domain.OnMatchModes...),
	}
	for _, f := range domain.ImportFields {
		props["map."+f] = httpapi.LineSchema(1, text.MaxTitle)
	}
	return httpapi.Object(nil, props)
}

// Output schemas (http/outputs.go): derived from the answers' Go types.
var (
	stages         = stageIDs()
	contactOut     = httpapi.OutputOf(domain.Contact{}, httpapi.EnumOf("stage_id", stages...))
	contactViewOut = httpapi.OutputOf(contactsview.Contact{}, httpapi.EnumOf("stage_id", stages...))
	pageOut        = httpapi.OutputOf(contactsview.Page{}, httpapi.EnumOf("contacts[].stage_id", stages...))
	noteOut        = httpapi.OutputOf(domain.Note{})
	notePageOut    = httpapi.OutputOf(contactsview.NotePage{})
	attachmentOut  = httpapi.OutputOf(domain.Attachment{})
	attachmentsOut = httpapi.OutputOf(contactsview.AttachmentPage{})
	pipelineOut    = httpapi.OutputOf(domain.Pipeline{})
	pipelinesOut   = httpapi.ObjectOf(map[string]json.RawMessage{"pipelines": httpapi.ArrayOf(pipelineOut)})
	boardOut       = httpapi.OutputOf(contactsview.Board{}, httpapi.EnumOf("stages[].contacts[].stage_id", stages...))
	historyOut     = httpapi.OutputOf(contactsview.History{}, httpapi.EnumOf("moves[].source", domain.SourceCreate, domain.SourceMove, domain.SourceImport, domain.SourceUndo))
	importStates   = []string{domain.StateCommitting, domain.StateCompleted, domain.StateUndoing, domain.StateUndone}
	importOut      = httpapi.OutputOf(contactscmd.ImportReport{}, httpapi.EnumOf("state", append(importStates, contactscmd.StateDryRun)...), httpapi.EnumOf("on_match", domain.OnMatchModes...))
	importStateOut = httpapi.OutputOf(domain.ImportState{}, httpapi.EnumOf("state", importStates...), httpapi.EnumOf("on_match", domain.OnMatchModes...))
	apiOut         = httpapi.OutputOf(APIInfo{})
	csvOut         = httpapi.Raw(`{"type":"string","description":"CSV (RFC 4180), a header line then one line per contact"}`)
	fileOut        = httpapi.Raw(`{"type":"string","format":"binary","description":"the file, with the content type it was stored with"}`)
	importBody     = httpapi.Raw(`{"type":"string","description":"text/csv: CSV (RFC 4180, UTF-8), a header line naming the columns, then one contact per line; text/vcard: vCard 4.0 or 3.0 cards (RFC 6350, UTF-8)"}`)
	vcardOut       = httpapi.Raw(`{"type":"string","description":"vCard 4.0 (RFC 6350): one card per contact"}`)
	multipartBody  = httpapi.Raw(`{"type":"object","required":["file"],"properties":{"file":{"type":"string","format":"binary"}}}`)
)
