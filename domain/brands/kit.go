// Package brands is the brand kits' domain (seed 000's "brand service"): a
// kit's name, colours, fonts and logos, edited as a draft and frozen by
// publishing into numbered versions that designs pin; its owner (an
// organization, optionally one of its workspaces) and whether it is offered
// for governed design. Pure Go: no I/O, no clock (time is passed in).
//
// Every event carries the kit after it (the studio's and publishing's rule):
// write models fold to the last one, and read models need no other source.
package brands

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/text"
)

// Stream type of a kit.
const StreamKit = "brands.kit"

// Event types: dotted, past tense, stable strings. All at schema version 1.
const (
	KitCreated   = "brands.kit.created"
	KitUpdated   = "brands.kit.updated"
	FontAdded    = "brands.kit.font_added"
	FontRemoved  = "brands.kit.font_removed"
	LogoAdded    = "brands.kit.logo_added"
	LogoRemoved  = "brands.kit.logo_removed"
	KitPublished = "brands.kit.published"
	KitDeleted   = "brands.kit.deleted"
)

// EventTypes are every event type of the brands context.
var EventTypes = []string{KitCreated, KitUpdated, FontAdded, FontRemoved, LogoAdded, LogoRemoved, KitPublished, KitDeleted}

// Bounds (the HTTP schemas read the same numbers).
const (
	MaxName       = text.MaxTitle // a kit's, a colour's or a logo's name
	MaxColourName = 64
	MaxColours    = 64
	MaxFonts      = 32
	MaxLogos      = 32
	MaxNote       = text.MaxReason // a version's note
	MaxFamily     = 128            // a font family as its file names it
)

// HexPattern is a colour as kits keep it: #RRGGBB.
const HexPattern = `^#[0-9A-Fa-f]{6}$`

var hexColour = regexp.MustCompile(HexPattern)

// Colour is a named colour of a kit ("Primary", #0A66C2). Hex is kept upper
// case: designs compare colours by their hex.
type Colour struct {
	Name string `json:"name"`
	Hex  string `json:"hex"`
}

// Font styles.
const (
	StyleNormal = "normal"
	StyleItalic = "italic"
)

// Font formats a kit takes.
const (
	FormatTTF   = "ttf"
	FormatOTF   = "otf"
	FormatWOFF2 = "woff2"
)

// FontTypes are the content types of font files by format.
var FontTypes = map[string]string{FormatTTF: "font/ttf", FormatOTF: "font/otf", FormatWOFF2: "font/woff2"}

// Font is a font file of a kit, described by what its tables say (the file
// was parsed when it was uploaded): one file is one family, weight and style.
type Font struct {
	FontID   string `json:"fontId"`
	Family   string `json:"family"`
	Weight   int    `json:"weight"`
	Style    string `json:"style"`
	Format   string `json:"format"`
	FullName string `json:"fullName"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
}

// Logo is an image of a kit (PNG or JPEG).
type Logo struct {
	LogoID      string `json:"logoId"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"`
}

// Content is what a draft holds and a version freezes.
type Content struct {
	Colours []Colour `json:"colours"`
	Fonts   []Font   `json:"fonts"`
	Logos   []Logo   `json:"logos"`
}

// Colour finds a colour by its hex (any case).
func (c Content) Colour(hex string) (Colour, bool) {
	for _, col := range c.Colours {
		if strings.EqualFold(col.Hex, hex) {
			return col, true
		}
	}
	return Colour{}, false
}

// Font finds the font of a family (case-insensitive), weight and style.
func (c Content) Font(family string, weight int, style string) (Font, bool) {
	for _, f := range c.Fonts {
		if strings.EqualFold(f.Family, family) && f.Weight == weight && f.Style == style {
			return f, true
		}
	}
	return Font{}, false
}

// HasFamily reports a font of the family in any weight or style.
func (c Content) HasFamily(family string) bool {
	return slices.ContainsFunc(c.Fonts, func(f Font) bool { return strings.EqualFold(f.Family, family) })
}

// Logo finds a logo by id.
func (c Content) Logo(id string) (Logo, bool) {
	i := slices.IndexFunc(c.Logos, func(l Logo) bool { return l.LogoID == id })
	if i < 0 {
		return Logo{}, false
	}
	return c.Logos[i], true
}

func (c Content) clone() Content {
	return Content{Colours: slices.Clone(c.Colours), Fonts: slices.Clone(c.Fonts), Logos: slices.Clone(c.Logos)}
}

func (c *Content) normalize() {
	if c.Colours == nil {
		c.Colours = []Colour{}
	}
	if c.Fonts == nil {
		c.Fonts = []Font{}
	}
	if c.Logos == nil {
		c.Logos = []Logo{}
	}
}

// Kit is a brand kit: its draft, its owner and its published versions' head.
type Kit struct {
	KitID          string  `json:"id"`
	OrganizationID string  `json:"organizationId"`
	WorkspaceID    *string `json:"workspaceId"`
	Name           string  `json:"name"`
	// AvailableForDesign offers the kit's current version to governed
	// design (brands.list); it is the kit's setting, not frozen in versions.
	AvailableForDesign bool    `json:"availableForDesign"`
	Draft              Content `json:"draft"`
	CurrentVersionID   *string `json:"currentVersionId"`
	VersionCount       int     `json:"versionCount"`
	// DraftChanged: the draft differs from the current version (or nothing
	// was published yet).
	DraftChanged bool      `json:"draftChanged"`
	Deleted      bool      `json:"deleted"`
	CreatedBy    string    `json:"createdBy"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// Published reports a kit with a current version.
func (k Kit) Published() bool { return k.CurrentVersionID != nil }

// Version is a published, frozen kit: what a design pins.
type Version struct {
	VersionID      string  `json:"versionId"`
	KitID          string  `json:"kitId"`
	OrganizationID string  `json:"organizationId"`
	Number         int     `json:"number"`
	Name           string  `json:"name"`
	Note           *string `json:"note"`
	Content
	PublishedBy string    `json:"publishedBy"`
	PublishedAt time.Time `json:"publishedAt"`
}

// KitV1 is the payload of every kit event: the kit after it; a publication
// carries the version it made.
type KitV1 struct {
	Kit     Kit      `json:"kit"`
	Version *Version `json:"version,omitempty"`
}

// KitModel is the write model of a kit's stream.
type KitModel struct {
	k       Kit
	current *Content          // the current version's content
	files   map[string]string // every file ever in the draft: kind and id -> download name
}

func LoadKit(history []event.Recorded) (*KitModel, error) { return kitFold.Load(&KitModel{}, history) }

var kitFold = event.Fold[*KitModel]{
	KitCreated: event.Apply((*KitModel).set), KitUpdated: event.Apply((*KitModel).set), FontAdded: event.Apply((*KitModel).set),
	FontRemoved: event.Apply((*KitModel).set), LogoAdded: event.Apply((*KitModel).set), LogoRemoved: event.Apply((*KitModel).set),
	KitPublished: event.Apply((*KitModel).set), KitDeleted: event.Apply((*KitModel).set),
}

func (m *KitModel) set(p KitV1) {
	m.k = p.Kit
	if m.files == nil {
		m.files = map[string]string{}
	}
	for _, f := range p.Kit.Draft.Fonts {
		m.files["font:"+f.FontID] = f.FullName + "." + f.Format
	}
	for _, l := range p.Kit.Draft.Logos {
		m.files["logo:"+l.LogoID] = l.Name + logoExt[l.ContentType]
	}
	if p.Version != nil {
		c := p.Version.Content.clone()
		m.current = &c
	}
}

func (m *KitModel) Exists() bool { return m.k.KitID != "" }

// File is the download name of a file (kind "font" or "logo") that was ever
// part of the kit: its draft's or a version's.
func (m *KitModel) File(kind, id string) (string, bool) {
	name, ok := m.files[kind+":"+id]
	return name, ok
}

// LogoTypes are the content types of logos, with their file extension.
var logoExt = map[string]string{"image/png": ".png", "image/jpeg": ".jpg"}

// LogoTypes are the content types a logo may have.
func LogoTypes() []string      { return []string{"image/png", "image/jpeg"} }
func (m *KitModel) State() Kit { return m.k }

// Live reports a kit that exists and is not deleted (404 otherwise).
func (m *KitModel) Live() error {
	if !m.Exists() || m.k.Deleted {
		return errs.NotFound("brand kit")
	}
	return nil
}

// fields collects the failing members of one input.
type fields []errs.Field

func (f *fields) add(pointer, format string, args ...any) {
	*f = append(*f, errs.Field{Pointer: pointer, Detail: fmt.Sprintf(format, args...)})
}

func (f fields) err() error {
	if len(f) == 0 {
		return nil
	}
	return errs.Invalid(f...)
}

func (f *fields) name(pointer, s string, max int) {
	if text.Trim(s) == "" {
		f.add(pointer, "must not be empty")
		return
	}
	*f = text.Line(*f, pointer, s, max)
}

// colours checks and normalizes a kit's colours: names unique (ignoring
// case), hex #RRGGBB (kept upper case).
func (f *fields) colours(pointer string, cs []Colour) []Colour {
	if len(cs) > MaxColours {
		f.add(pointer, "must have at most %d colours", MaxColours)
		return nil
	}
	out := make([]Colour, 0, len(cs))
	seen := map[string]bool{}
	for i, c := range cs {
		at := fmt.Sprintf("%s/%d", pointer, i)
		f.name(at+"/name", c.Name, MaxColourName)
		name := text.Trim(c.Name)
		if seen[strings.ToLower(name)] && name != "" {
			f.add(at+"/name", "another colour of the kit has this name")
		}
		seen[strings.ToLower(name)] = true
		if !hexColour.MatchString(c.Hex) {
			f.add(at+"/hex", "must be a colour as #RRGGBB")
		}
		out = append(out, Colour{Name: name, Hex: strings.ToUpper(c.Hex)})
	}
	return out
}

// NewKit is brand_kits.create's input, the owner resolved.
type NewKit struct {
	ID, OrganizationID string
	WorkspaceID        *string
	Name               string
	Colours            []Colour
	AvailableForDesign bool
	CreatedBy          string
}

// Create starts a kit with an empty draft (colours when given).
func (m *KitModel) Create(n NewKit, now time.Time) ([]event.Change, error) {
	var f fields
	f.name("/name", n.Name, MaxName)
	colours := f.colours("/colours", n.Colours)
	if err := f.err(); err != nil {
		return nil, err
	}
	if m.Exists() {
		return nil, errs.Conflict("brand_kit_exists", "the brand kit already exists")
	}
	k := Kit{KitID: n.ID, OrganizationID: n.OrganizationID, WorkspaceID: n.WorkspaceID, Name: text.Trim(n.Name),
		AvailableForDesign: n.AvailableForDesign, Draft: Content{Colours: colours}, DraftChanged: true, CreatedBy: n.CreatedBy,
		CreatedAt: now, UpdatedAt: now}
	k.Draft.normalize()
	return []event.Change{event.New(KitCreated, KitV1{Kit: k})}, nil
}

// KitChange is brand_kits.update: nil members are unchanged; Colours
// replaces the draft's palette.
type KitChange struct {
	Name               *string
	Colours            *[]Colour
	AvailableForDesign *bool
}

// Update changes the draft's name or palette, or the kit's offer for
// governed design. Nothing changed is no event.
func (m *KitModel) Update(c KitChange, now time.Time) ([]event.Change, error) {
	var f fields
	next := m.k
	next.Draft = m.k.Draft.clone()
	if c.Name != nil {
		f.name("/name", *c.Name, MaxName)
		next.Name = text.Trim(*c.Name)
	}
	if c.Colours != nil {
		next.Draft.Colours = f.colours("/colours", *c.Colours)
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	if err := m.Live(); err != nil {
		return nil, err
	}
	if c.AvailableForDesign != nil {
		next.AvailableForDesign = *c.AvailableForDesign
	}
	return m.change(KitUpdated, next, now)
}

// change records the kit as next, when it differs.
func (m *KitModel) change(typ string, next Kit, now time.Time) ([]event.Change, error) {
	next.Draft.normalize()
	next.DraftChanged = m.current == nil || !sameContent(next.Draft, *m.current)
	if same(next, m.k) {
		return nil, nil
	}
	next.UpdatedAt = now
	return []event.Change{event.New(typ, KitV1{Kit: next})}, nil
}

// AddFont adds a parsed font file to the draft: one file per family,
// weight and style (409 font_exists).
func (m *KitModel) AddFont(font Font, now time.Time) ([]event.Change, error) {
	if err := m.Live(); err != nil {
		return nil, err
	}
	if _, ok := m.k.Draft.Font(font.Family, font.Weight, font.Style); ok {
		return nil, errs.Conflict("font_exists", fmt.Sprintf("the kit has a font of family %s, weight %d, style %s already: remove it first",
			font.Family, font.Weight, font.Style))
	}
	if len(m.k.Draft.Fonts) >= MaxFonts {
		return nil, errs.Conflict("too_many_fonts", fmt.Sprintf("a kit holds at most %d fonts", MaxFonts))
	}
	next := m.k
	next.Draft = m.k.Draft.clone()
	next.Draft.Fonts = append(next.Draft.Fonts, font)
	return m.change(FontAdded, next, now)
}

// RemoveFont takes a font out of the draft (published versions keep it).
func (m *KitModel) RemoveFont(fontID string, now time.Time) ([]event.Change, error) {
	if err := m.Live(); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(m.k.Draft.Fonts, func(f Font) bool { return f.FontID == fontID })
	if i < 0 {
		return nil, errs.NotFound("font")
	}
	next := m.k
	next.Draft = m.k.Draft.clone()
	next.Draft.Fonts = slices.Delete(next.Draft.Fonts, i, i+1)
	return m.change(FontRemoved, next, now)
}

// AddLogo adds a checked image to the draft.
func (m *KitModel) AddLogo(logo Logo, now time.Time) ([]event.Change, error) {
	var f fields
	f.name("/name", logo.Name, MaxName)
	if err := f.err(); err != nil {
		return nil, err
	}
	if err := m.Live(); err != nil {
		return nil, err
	}
	if len(m.k.Draft.Logos) >= MaxLogos {
		return nil, errs.Conflict("too_many_logos", fmt.Sprintf("a kit holds at most %d logos", MaxLogos))
	}
	logo.Name = text.Trim(logo.Name)
	next := m.k
	next.Draft = m.k.Draft.clone()
	next.Draft.Logos = append(next.Draft.Logos, logo)
	return m.change(LogoAdded, next, now)
}

// RemoveLogo takes a logo out of the draft (published versions keep it).
func (m *KitModel) RemoveLogo(logoID string, now time.Time) ([]event.Change, error) {
	if err := m.Live(); err != nil {
		return nil, err
	}
	i := slices.IndexFunc(m.k.Draft.Logos, func(l Logo) bool { return l.LogoID == logoID })
	if i < 0 {
		return nil, errs.NotFound("logo")
	}
	next := m.k
	next.Draft = m.k.Draft.clone()
	next.Draft.Logos = slices.Delete(next.Draft.Logos, i, i+1)
	return m.change(LogoRemoved, next, now)
}

// Publish freezes the draft as the kit's next version, which becomes its
// current one. A draft without a colour governs nothing (422); a draft
// unchanged since the current version is 409 nothing_to_publish.
func (m *KitModel) Publish(versionID string, note *string, by string, now time.Time) ([]event.Change, *Version, error) {
	var f fields
	if note != nil {
		*note = text.Trim(*note)
		f = text.Line(f, "/note", *note, MaxNote)
		if *note == "" {
			note = nil
		}
	}
	if err := f.err(); err != nil {
		return nil, nil, err
	}
	if err := m.Live(); err != nil {
		return nil, nil, err
	}
	if len(m.k.Draft.Colours) == 0 {
		return nil, nil, errs.InvalidField("/draft/colours", "a kit needs at least one colour to be published")
	}
	if !m.k.DraftChanged {
		return nil, nil, errs.Conflict("nothing_to_publish", "the draft is the current version already")
	}
	v := Version{VersionID: versionID, KitID: m.k.KitID, OrganizationID: m.k.OrganizationID, Number: m.k.VersionCount + 1,
		Name: m.k.Name, Note: note, Content: m.k.Draft.clone(), PublishedBy: by, PublishedAt: now}
	next := m.k
	next.CurrentVersionID, next.VersionCount, next.DraftChanged, next.UpdatedAt = &v.VersionID, v.Number, false, now
	return []event.Change{event.New(KitPublished, KitV1{Kit: next, Version: &v})}, &v, nil
}

// Delete retires the kit: it leaves every list and takes no new design;
// its versions stay readable for the designs that pin them.
func (m *KitModel) Delete(now time.Time) ([]event.Change, error) {
	if err := m.Live(); err != nil {
		return nil, err
	}
	next := m.k
	next.Deleted, next.UpdatedAt = true, now
	return []event.Change{event.New(KitDeleted, KitV1{Kit: next})}, nil
}

func sameContent(a, b Content) bool {
	return slices.Equal(a.Colours, b.Colours) && slices.Equal(a.Fonts, b.Fonts) && slices.Equal(a.Logos, b.Logos)
}

func same(a, b Kit) bool {
	return a.Name == b.Name && a.AvailableForDesign == b.AvailableForDesign && a.DraftChanged == b.DraftChanged &&
		a.Deleted == b.Deleted && sameContent(a.Draft, b.Draft)
}
