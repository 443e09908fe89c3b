// Package gateway is the usage gateway's domain (seed 001): the one metered
// path's records (usage events, their cost from a versioned price table),
// spend caps and the BYOK service fee, usage meters and their thresholds,
// provider health per organization, and provisioned organizations. Pure Go:
// time is passed in, no I/O.
//
// Files hold one area each (usage.go, billing.go, meters.go, health.go,
// organization.go); each area declares its stream types, event types and
// payloads beside its decisions, and event_types.go merges the areas' lists
// into EventTypes. An area added later (connections, credentials, sends,
// payments, webhooks) is its own file plus one line there.
package gateway
