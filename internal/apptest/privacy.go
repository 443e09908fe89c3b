package apptest

import "net/http"

// ExportCounts reads the organization's data export of the client's service
// (GET /api/organizations/data/export) and answers the size of each of its
// lists: what an erasure test checks is empty after it, and kept for a
// bystander.
func (c *Client) ExportCounts() map[string]int {
	c.t.Helper()
	var e map[string]any
	c.JSON(http.MethodGet, "/api/organizations/data/export", nil, http.StatusOK, &e)
	out := map[string]int{}
	for k, v := range e {
		if l, ok := v.([]any); ok {
			out[k] = len(l)
		}
	}
	return out
}

// ExpectErased checks every list of the client's data export is empty
// (after an erasure, after a rebuild of it), naming each one that is not
// and going on.
func (c *Client) ExpectErased(when string) {
	c.t.Helper()
	for k, n := range c.ExportCounts() {
		if n != 0 {
			c.t.Errorf("%s: the export still has %d %s", when, n, k)
		}
	}
}
