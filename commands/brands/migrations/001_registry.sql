-- The brand kits' write-side registry, written in the transaction of the
-- command that changes a kit (commands.Also): who owns each kit, whether it
-- is deleted, offered for governed design and published (its current
-- version), and every published version's frozen content. Other contexts
-- read it through the brands commands (a studio project's or a publishing
-- brand's kit reference, a design's pinned version), consistently with the
-- commands: a kit published a moment ago is pinned at once. Rebuildable
-- from the events: each carries the kit, and a publication its version.
CREATE TABLE brands_kits (
    kit_id             text        PRIMARY KEY,
    organization_id    text        NOT NULL,
    workspace_id       text,
    current_version_id text,
    available          boolean     NOT NULL,
    deleted            boolean     NOT NULL DEFAULT false,
    updated_at         timestamptz NOT NULL
);
CREATE INDEX brands_kits_organization ON brands_kits (organization_id);

CREATE TABLE brands_versions (
    version_id      text        PRIMARY KEY,
    kit_id          text        NOT NULL,
    organization_id text        NOT NULL,
    workspace_id    text,
    number          int         NOT NULL,
    doc             jsonb       NOT NULL,
    published_at    timestamptz NOT NULL
);
CREATE INDEX brands_versions_kit ON brands_versions (kit_id, number);
