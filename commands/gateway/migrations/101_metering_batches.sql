-- Settles of concurrent calls share one transaction (a group commit): their
-- costs and releases are summed per budget row in Go and applied here, one
-- statement for the whole transaction, one row at a time in the order the
-- arrays come in: (organization, scope, month), the order reservations lock
-- rows in, so no two transactions wait on each other in a cycle.
-- p_release is what the calls had reserved against the row (a hard cap's
-- scope), moved out of reserved; a row is inserted only for a scope that
-- reserved nothing (a reservation inserts its rows first), so a new row
-- starts at reserved 0, as the single settle's upsert did.
CREATE FUNCTION gateway_settle_budgets(p_orgs text[], p_scopes text[], p_months text[], p_settled bigint[], p_release bigint[])
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_orgs, 1), 0) LOOP
        INSERT INTO gateway_budgets (organization_id, scope, month, settled, reserved)
            VALUES (p_orgs[i], p_scopes[i], p_months[i], p_settled[i], 0)
            ON CONFLICT (organization_id, scope, month) DO UPDATE
            SET settled = gateway_budgets.settled + EXCLUDED.settled, reserved = gateway_budgets.reserved - p_release[i];
    END LOOP;
END
$$;

-- Reservations of concurrent calls share one statement and one commit too:
-- each item is reserved against every active hard cap of its organization
-- and principal, or refused, on its own (a refusal keeps nothing of that
-- item and does not touch the others: no exception, the item's row says
-- why in refused, the figures as JSON). An item locks its budget rows
-- (FOR UPDATE, in scope order) before it checks them, so concurrent calls
-- at the edge of a cap serialize on the check, and settled + reserved never
-- passes the cap; a reservation is never shrunk to fit. Items come sorted
-- by (organization, principal scope, month) and rows are locked in
-- (organization, scope) order, as settles lock them: no cycle of waits.
-- Results come back in item order (ord).
CREATE FUNCTION gateway_reserve_batch(p_requests text[], p_orgs text[], p_users text[], p_months text[], p_amounts bigint[],
                                      p_expires timestamptz[], p_calls jsonb[])
RETURNS TABLE (ord int, held text[], refused text) LANGUAGE plpgsql AS $$
DECLARE
    c record;
    b record;
BEGIN
    FOR i IN 1 .. coalesce(array_length(p_requests, 1), 0) LOOP
        ord := i;
        held := '{}';
        refused := NULL;
        FOR c IN SELECT g.scope, g.cap_microcents FROM gateway_caps g
                 WHERE g.organization_id = p_orgs[i] AND g.hard AND g.active AND g.scope IN ('organization', p_users[i])
                 ORDER BY g.scope COLLATE "C" LOOP
            INSERT INTO gateway_budgets (organization_id, scope, month) VALUES (p_orgs[i], c.scope, p_months[i]) ON CONFLICT DO NOTHING;
            SELECT x.settled, x.reserved INTO b FROM gateway_budgets x
                WHERE x.organization_id = p_orgs[i] AND x.scope = c.scope AND x.month = p_months[i] FOR UPDATE;
            IF b.settled + b.reserved + p_amounts[i] > c.cap_microcents THEN
                refused := json_build_object('scope', c.scope, 'cap', c.cap_microcents, 'settled', b.settled,
                                             'reserved', b.reserved, 'amount', p_amounts[i])::text;
                EXIT;
            END IF;
            held := held || c.scope;
        END LOOP;
        IF refused IS NULL THEN
            IF cardinality(held) > 0 THEN
                UPDATE gateway_budgets x SET reserved = x.reserved + p_amounts[i]
                    WHERE x.organization_id = p_orgs[i] AND x.scope = ANY (held) AND x.month = p_months[i];
            END IF;
            INSERT INTO gateway_reservations (request_id, organization_id, amount, scopes, month, call, expires_at)
                VALUES (p_requests[i], p_orgs[i], p_amounts[i], held, p_months[i], p_calls[i], p_expires[i]);
        ELSE
            held := NULL;
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;

-- The one-call form is gone: a lone call is a batch of one.
DROP FUNCTION gateway_reserve(text, text, text[], text, bigint, timestamptz, jsonb);
