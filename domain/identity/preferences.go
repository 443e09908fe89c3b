package identity

import (
	"slices"
	"strconv"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// App-switcher preferences of one principal in one organization (a stream
// per pair: the tenant of a stream is fixed, and a user's launcher differs
// per active organization).
const (
	StreamPreferences = "identity.preferences"
	PreferencesSet    = "identity.preferences.set"
	maxTiles          = 100
)

// Tile sizes and themes of the launcher.
var (
	TileSizes = []string{"small", "medium", "large"}
	Themes    = []string{"light", "dark"}
)

func PreferencesStreamID(organizationID, principalID string) string {
	return "prefs:" + organizationID + ":" + principalID
}

type Preferences struct {
	Favorites []string `json:"favorites"`
	Hidden    []string `json:"hidden"`
	TileSize  string   `json:"tileSize"`
	Theme     *string  `json:"theme,omitempty"`
}

// DefaultPreferences are answered before the first write.
func DefaultPreferences() Preferences {
	return Preferences{Favorites: []string{}, Hidden: []string{}, TileSize: "medium"}
}

type PreferencesSetV1 struct {
	PrincipalID    string      `json:"principal_id"`
	OrganizationID string      `json:"organization_id"`
	Preferences    Preferences `json:"preferences"`
	At             time.Time   `json:"at"`
}

type PreferencesModel struct{ current Preferences }

func LoadPreferences(history []event.Recorded) (*PreferencesModel, error) {
	return preferencesFold.Load(&PreferencesModel{current: DefaultPreferences()}, history)
}

var preferencesFold = event.Fold[*PreferencesModel]{
	PreferencesSet: event.Apply(func(m *PreferencesModel, p PreferencesSetV1) { m.current = p.Preferences }),
}

func (m *PreferencesModel) Current() Preferences { return m.current }

// Set replaces the preferences (PUT semantics); the same value appends nothing.
func (m *PreferencesModel) Set(principalID, organizationID string, p Preferences, now time.Time) ([]event.Change, error) {
	if p.Favorites == nil {
		p.Favorites = []string{}
	}
	if p.Hidden == nil {
		p.Hidden = []string{}
	}
	var f []errs.Field
	check := func(name string, ids []string) {
		if len(ids) > maxTiles {
			f = append(f, errs.Field{Pointer: "/" + name, Detail: "at most 100 applications"})
		}
		for i, id := range ids {
			if !ValidAppID(id) {
				f = append(f, errs.Field{Pointer: "/" + name + "/" + strconv.Itoa(i), Detail: "must be an app id (developer-portal dapp_ ids are not app ids)"})
			} else if slices.Index(ids, id) != i {
				f = append(f, errs.Field{Pointer: "/" + name + "/" + strconv.Itoa(i), Detail: "listed twice"})
			}
		}
	}
	check("favorites", p.Favorites)
	check("hidden", p.Hidden)
	for i, id := range p.Favorites {
		if slices.Contains(p.Hidden, id) {
			f = append(f, errs.Field{Pointer: "/favorites/" + strconv.Itoa(i), Detail: "an application cannot be a favorite and hidden"})
		}
	}
	if !slices.Contains(TileSizes, p.TileSize) {
		f = append(f, errs.Field{Pointer: "/tileSize", Detail: "must be one of small, medium, large"})
	}
	if p.Theme != nil && !slices.Contains(Themes, *p.Theme) {
		f = append(f, errs.Field{Pointer: "/theme", Detail: "must be light or dark"})
	}
	if len(f) > 0 {
		return nil, errs.Invalid(f...)
	}
	same := slices.Equal(p.Favorites, m.current.Favorites) && slices.Equal(p.Hidden, m.current.Hidden) &&
		p.TileSize == m.current.TileSize && ((p.Theme == nil) == (m.current.Theme == nil)) &&
		(p.Theme == nil || *p.Theme == *m.current.Theme)
	if same {
		return nil, nil
	}
	return []event.Change{event.New(PreferencesSet, PreferencesSetV1{PrincipalID: principalID, OrganizationID: organizationID,
		Preferences: p, At: now})}, nil
}
