package projections

// StreamVersionsSQL is the runner's read of a batch's stream versions, for
// tests that look at its plan.
const StreamVersionsSQL = streamVersionsSQL
