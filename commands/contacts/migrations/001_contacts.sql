-- Search of the contacts read model: full text (simple configuration,
-- unaccented) and trigrams. Extensions are per database; both are trusted.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;

-- contacts_fold: lower-case and unaccented. unaccent() is STABLE (its
-- dictionary could change); ours is fixed, so the fold is declared
-- IMMUTABLE and generated columns and indexes may use it.
CREATE OR REPLACE FUNCTION contacts_fold(t text) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
    AS $$ SELECT public.unaccent('public.unaccent'::regdictionary, lower(t)) $$;

-- The text a contact is found by: names, email (whole, and split at its
-- punctuation so "example" is a word of it), company and tags, folded.
CREATE OR REPLACE FUNCTION contacts_search_text(first_name text, last_name text, email text, company text, tags text[])
    RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT contacts_fold(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' '
        || translate(coalesce(email, ''), '@.-_+', '     ') || ' ' || coalesce(company, '') || ' '
        || coalesce(array_to_string(tags, ' '), '')) $$;

-- The contacts' write model: one row per contact, kept in the transaction
-- of every command that changes the contact (its own commands and import
-- batches, whose events carry the rows), so imports decide matches against
-- the write side, never against a lagging read model. The row is the
-- contact's whole state (as the events carry it) and its match keys; only
-- live rows are matched (the partial indexes), so a soft-deleted contact
-- never blocks its email. Rebuildable from the events: each carries the
-- state at its revision.
CREATE TABLE contacts_records (
    contact_id      uuid    PRIMARY KEY,
    organization_id text    NOT NULL,
    revision        int     NOT NULL,
    deleted         boolean NOT NULL,
    email_key       text    NOT NULL,
    name_key        text    NOT NULL,
    state           jsonb   NOT NULL
) WITH (fillfactor = 80); -- rewritten by updates: room for HOT updates
CREATE INDEX contacts_records_email ON contacts_records (organization_id, email_key) WHERE NOT deleted AND email_key <> '';
CREATE INDEX contacts_records_name ON contacts_records (organization_id, name_key) WHERE NOT deleted AND name_key <> '';
