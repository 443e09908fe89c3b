package apptest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/platform/backend/eventstore"
	"github.com/platform/backend/internal/pgtypes"
	"github.com/platform/backend/internal/testenv"
)

// Infra gives a component test a fresh database with the given migrations
// applied and a Kafka configuration under its own topic prefix, with the
// named topics (from the config) created. For tests below a whole platform.
func Infra(t testing.TB, prefix string, migrate []func(context.Context, *pgxpool.Pool) error, topics func(eventstore.KafkaConfig) []string) (*pgxpool.Pool, eventstore.KafkaConfig) {
	t.Helper()
	ctx := context.Background()
	pc, err := pgxpool.ParseConfig(testenv.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	pgtypes.Configure(pc) // as app.OpenPool does
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	for _, m := range migrate {
		if err := m(ctx, pool); err != nil {
			t.Fatal(err)
		}
	}
	brokers := testenv.KafkaBrokers(t)
	kc := eventstore.KafkaConfig{Brokers: brokers, Topics: eventstore.Topics{Prefix: testenv.TopicPrefix(t, brokers, prefix)}}.WithDefaults()
	if err := eventstore.EnsureTopics(kc, topics(kc)...); err != nil {
		t.Fatal(err)
	}
	return pool, kc
}
