package projections

// Scope is where a workspace context's query reads (the studio's, the
// design service's): an organization's workspace. Every query names both,
// so another organization's or workspace's ids are missing ones.
type Scope struct{ Organization, Workspace string }

// MaxPage bounds a page of a list; DefaultPage is a page when none is asked.
const (
	MaxPage     = 200
	DefaultPage = 50
)

// Page bounds a list: Limit rows (1..MaxPage, DefaultPage otherwise) after
// the Cursor (the last id of the previous page; such lists are newest first
// by id, so ids are the order).
type Page struct {
	Limit  int
	Cursor string
}

// Size is the page's bounded number of rows. A query fetches one row more
// (Size()+1) and Cut tells from it whether a next page follows.
func (p Page) Size() int {
	if p.Limit < 1 || p.Limit > MaxPage {
		return DefaultPage
	}
	return p.Limit
}

// Cut cuts a list fetched one row long: the rows of the page and the cursor
// of the next page (nil on the last), the id of its last row.
func Cut[T any](list []T, p Page, id func(T) string) ([]T, *string) {
	if len(list) <= p.Size() {
		return list, nil
	}
	list = list[:p.Size()]
	next := id(list[len(list)-1])
	return list, &next
}
