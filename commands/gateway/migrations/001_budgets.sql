-- The gateway's write-side budget state. The usage events are the record;
-- these tables are what the one metered path reads and writes per call, like
-- es_unique: rebuildable from the billing streams, the usage events of the
-- month and the open reservations.

-- Each organization's spend caps and BYOK fee, mirrored from its billing
-- stream in the same transaction as every billing command (commands.Also),
-- so a reservation reads relational rows instead of folding a stream.
CREATE TABLE gateway_caps (
    organization_id text    NOT NULL,
    scope           text    NOT NULL, -- organization | user:<id>
    cap_id          text    NOT NULL,
    cap_microcents  bigint  NOT NULL,
    hard            boolean NOT NULL,
    active          boolean NOT NULL,
    PRIMARY KEY (organization_id, scope)
);

CREATE TABLE gateway_fees (
    organization_id text             PRIMARY KEY,
    service_fee_bps double precision NOT NULL
);

-- Month-to-date spend per organization and per user (settled, micro-cents)
-- and what open calls have reserved against it. Settles move a call from
-- reserved to settled in the usage event's transaction.
CREATE TABLE gateway_budgets (
    organization_id text   NOT NULL,
    scope           text   NOT NULL,
    month           text   NOT NULL, -- 2026-04 (UTC)
    settled         bigint NOT NULL DEFAULT 0,
    reserved        bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (organization_id, scope, month)
) WITH (fillfactor = 70); -- rewritten by every call: room for HOT updates

-- One row per call between reserve and settle. A row left past expires_at
-- is a call whose process died: the sweeper settles it at its full amount.
CREATE TABLE gateway_reservations (
    request_id      text        PRIMARY KEY,
    organization_id text        NOT NULL,
    amount          bigint      NOT NULL,
    scopes          text[]      NOT NULL, -- the hard-cap scopes the amount is reserved against
    month           text        NOT NULL,
    call            jsonb       NOT NULL, -- what the sweeper records (provider, model, action, estimate, ...)
    created_at      timestamptz NOT NULL DEFAULT now(),
    expires_at      timestamptz NOT NULL
);
CREATE INDEX gateway_reservations_expiry ON gateway_reservations (expires_at);

-- Reserve a call's worst-case cost against every active hard cap of its
-- scopes, one UPDATE per budget row, the row lock serializing concurrent
-- calls on the check: settled + reserved never passes the cap (a reservation
-- is never shrunk to fit). Refused: SQLSTATE GW402 with the cap's figures as
-- JSON in DETAIL, and nothing is kept (the function is one statement).
-- Rows are locked in scope order, as settles lock them: no deadlock.
CREATE FUNCTION gateway_reserve(p_request text, p_org text, p_scopes text[], p_month text, p_amount bigint,
                                p_expires timestamptz, p_call jsonb) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
    c        record;
    b        record;
    held     text[] := '{}';
BEGIN
    FOR c IN SELECT scope, cap_microcents FROM gateway_caps
             WHERE organization_id = p_org AND hard AND active AND scope = ANY (p_scopes) ORDER BY scope LOOP
        INSERT INTO gateway_budgets (organization_id, scope, month) VALUES (p_org, c.scope, p_month) ON CONFLICT DO NOTHING;
        UPDATE gateway_budgets SET reserved = reserved + p_amount
            WHERE organization_id = p_org AND scope = c.scope AND month = p_month
              AND settled + reserved + p_amount <= c.cap_microcents;
        IF NOT FOUND THEN
            SELECT settled, reserved INTO b FROM gateway_budgets
                WHERE organization_id = p_org AND scope = c.scope AND month = p_month;
            RAISE EXCEPTION 'spend cap exceeded' USING ERRCODE = 'GW402',
                DETAIL = json_build_object('scope', c.scope, 'cap', c.cap_microcents, 'settled', b.settled,
                                           'reserved', b.reserved, 'amount', p_amount)::text;
        END IF;
        held := held || c.scope;
    END LOOP;
    INSERT INTO gateway_reservations (request_id, organization_id, amount, scopes, month, call, expires_at)
        VALUES (p_request, p_org, p_amount, held, p_month, p_call, p_expires);
    RETURN held;
END
$$;
