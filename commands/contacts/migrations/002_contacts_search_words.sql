-- The two texts the contacts read model's search reads (generated columns
-- of its projection), both folded (contacts_fold: lower-case, unaccented).
--
-- contacts_search_words: what full text splits into words: names, the
-- email's parts, company and tags, every @ . - _ + a word break. A query is
-- split the same way (at everything that is not a letter or a digit), so
-- the parser's compound tokens (a whole email, a host, "churn-risk") could
-- never be asked for: each email was a word of its own in the index, and a
-- prefix term had to read all of those it begins (2,500 for "ann" over
-- 100,000 contacts).
CREATE OR REPLACE FUNCTION contacts_search_words(first_name text, last_name text, email text, company text, tags text[])
    RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT translate(contacts_fold(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' '
        || coalesce(company, '') || ' ' || coalesce(array_to_string(tags, ' '), '')), '@.-_+', '     ') $$;

-- contacts_search_line: what the substring match (LIKE, trigram-indexed)
-- reads: names, the whole email, company and tags.
CREATE OR REPLACE FUNCTION contacts_search_line(first_name text, last_name text, email text, company text, tags text[])
    RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
    AS $$ SELECT contacts_fold(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || coalesce(email, '') || ' '
        || coalesce(company, '') || ' ' || coalesce(array_to_string(tags, ' '), '')) $$;
