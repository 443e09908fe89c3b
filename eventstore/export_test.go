package eventstore

// PendingSQL is the relay's read of the rows past its cursor, for tests
// that look at its plan.
var PendingSQL = pendingSQL

// RecordBatch is the record batch a LogWriter writes for one partition.
var RecordBatch = recordBatch

// ValidJSON is the envelope decoder's check of a payload.
var ValidJSON = validJSON

// EncodeJSON is the store's json.Marshal of a decision's values.
var EncodeJSON = encodeJSON
