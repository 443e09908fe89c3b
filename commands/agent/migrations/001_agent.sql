-- The agent's write-side tables. Each is written in the transaction of the
-- command whose events it follows (Outcome.Writes), or holds a secret no
-- event may carry.

-- A run's approvals and tasks by id: approvals.approve and tasks.complete
-- find the run they wait in (the organization's own only), consistently
-- with the commands, without waiting for a read model.
CREATE TABLE agent_waits (
    wait_id         text        PRIMARY KEY,
    organization_id text        NOT NULL,
    run_id          text        NOT NULL,
    step            integer     NOT NULL,
    kind            text        NOT NULL CHECK (kind IN ('approval', 'task'))
);

-- Flows started by a platform event type: the event-trigger reactor reads
-- the rows of a batch's event types in one query. A row exists while its
-- flow is active; active_since keeps events recorded before the flow from
-- starting it (the reactor reads history when it starts).
CREATE TABLE agent_triggers (
    flow_id         text        PRIMARY KEY,
    organization_id text        NOT NULL,
    event_type      text        NOT NULL,
    active_since    timestamptz NOT NULL
);
CREATE INDEX agent_triggers_type ON agent_triggers (event_type, organization_id);

-- Credentials delegated by flows' owners: one platform API key per flow and
-- app, minted by identity with the owner as its creator (so /validate
-- intersects it with what the owner holds now), its token sealed with the
-- platform's key ring (purpose "agent", the row's flow and app as
-- additional data). A key whose scopes or owner no longer match the flow
-- is replaced and revoked.
CREATE TABLE agent_credentials (
    flow_id         text        NOT NULL,
    app_id          text        NOT NULL,
    organization_id text        NOT NULL,
    owner_id        text        NOT NULL,
    scopes          text        NOT NULL,
    key_id          text        NOT NULL,
    seal_key_id     text        NOT NULL,
    nonce           bytea       NOT NULL,
    sealed          bytea       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (flow_id, app_id)
);
