-- Per-account password backoff (domain/identity/login_backoff.go): one row
-- per email hash (keyed HMAC, so an address without an account counts the
-- same way) with its current run of failed password attempts. Write-side
-- state, not events: a guess is not a fact anyone audits, and an event per
-- guess would let guessing grow the log. A success deletes the row; privacy
-- maintenance deletes runs older than a day.
CREATE TABLE identity_login_failures (
    account         text        PRIMARY KEY,
    failures        integer     NOT NULL,
    last_failure_at timestamptz NOT NULL,
    blocked_until   timestamptz
) WITH (fillfactor = 70);
CREATE INDEX identity_login_failures_last ON identity_login_failures (last_failure_at);
