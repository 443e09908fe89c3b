package app

import (
	"os"
	"time"

	"github.com/platform/backend/commands/reactor"
	"github.com/platform/backend/commands/timers"
	"github.com/platform/backend/projections"
)

// TimersConfig is the durable-timer scheduler (TIMERS_POLL_INTERVAL,
// TIMERS_LEASE); defaults in timers.Config.
type TimersConfig = timers.Config

// ReactorsConfig is the reactors' consumption (the Kafka section is the
// platform's); defaults in reactor.Config.
type ReactorsConfig = reactor.Config

// wireReactors builds the timer scheduler with every context's timer kinds
// and the reactor runner with every context's reactors. Both run in every
// process: timers are claimed with SKIP LOCKED, reactors share their
// consumer groups' partitions.
func (a *App) wireReactors() error {
	registry := timers.NewRegistry()
	if err := a.Status.RegisterTimers(registry); err != nil {
		return err
	}
	var err error
	if a.Timers, err = timers.NewScheduler(a.Pool, registry, a.Cfg.Timers, a.Log); err != nil {
		return err
	}
	a.Reactors, err = reactor.NewRunner(a.Pool, a.Cfg.Reactors,
		projections.DeadLetterTopic{Publisher: a.publisher, Topic: a.Cfg.Kafka.Topics.DeadLetter()}, a.Log,
		a.Status.AutoIncidents())
	return err
}

// timersFromEnv reads the scheduler's variables over c.
func timersFromEnv(c *Config) []error {
	var errs []error
	for env, d := range map[string]*time.Duration{
		"TIMERS_POLL_INTERVAL": &c.Timers.PollInterval,
		"TIMERS_LEASE":         &c.Timers.Lease,
	} {
		if v := os.Getenv(env); v != "" {
			parsed, err := time.ParseDuration(v)
			errs = append(errs, err)
			*d = parsed
		}
	}
	return errs
}
