package gateway_test

import (
	"testing"

	"github.com/platform/backend/internal/apptest"
)

// person is a user of an organization with a role (apptest.Person).
type person = apptest.Person

func newPerson(t *testing.T, h *apptest.Harness, org, role string) person {
	return h.NewPerson(t, org, role)
}
