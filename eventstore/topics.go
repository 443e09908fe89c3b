package eventstore

import (
	"fmt"
	"strings"
)

// Topics names the Kafka topics. One topic per bounded context keeps every
// stream of a context on one ordered log; the prefix lets tests run side by side.
type Topics struct {
	Prefix string // default "platform"
}

// ForContext is the event topic of a bounded context, e.g. platform.status.events.v1.
func (t Topics) ForContext(context string) string {
	return t.prefix() + "." + context + ".events.v1"
}

// ForStreamType maps "status.incident" to the status context's topic.
func (t Topics) ForStreamType(streamType string) (string, error) {
	ctx, _, ok := strings.Cut(streamType, ".")
	if !ok || ctx == "" {
		return "", fmt.Errorf("stream type %q: want <context>.<aggregate>", streamType)
	}
	return t.ForContext(ctx), nil
}

// Notifications is the topic of emitted contract notifications.
func (t Topics) Notifications() string { return t.prefix() + ".notifications.v1" }

// DeadLetter receives events a projection could not apply and notifications
// that failed their contract, each with the reason in a header.
func (t Topics) DeadLetter() string { return t.prefix() + ".deadletter.v1" }

// NotificationsPoison receives notifications whose delivery kept failing.
func (t Topics) NotificationsPoison() string { return t.prefix() + ".notifications.poison.v1" }

// Group names a consumer group under the same prefix as the topics.
func (t Topics) Group(name string) string { return t.prefix() + "." + name }

func (t Topics) prefix() string {
	if t.Prefix == "" {
		return "platform"
	}
	return t.Prefix
}
