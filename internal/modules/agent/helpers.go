package agent

import (
	"github.com/platform/backend/commands"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/eventstore"
)

func commandsMeta(organizationID, actorID, actorType string) commands.Meta {
	return commands.Meta{OrganizationID: organizationID, Actor: eventstore.Actor{ID: actorID, Type: actorType}}
}

func commandsRecorded(history []eventstore.Event) []event.Recorded { return commands.Recorded(history) }
