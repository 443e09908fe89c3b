-- The studio's write-side registry: one row per object (project, composition
-- version, render job, generation request, asset, template, preset, a
-- month's quota warning), written
-- in the transaction of the command that creates it (live = false once
-- deleted). Commands check in it, under their locks, that an object and its
-- project are live and in the workspace named by the path; workspaces.delete
-- counts what a workspace still holds; organizations.data.erase deletes the
-- organization's rows, so every command afterwards finds its objects
-- missing, and the read models write only objects the registry still knows
-- (a rebuild from the log brings nothing erased back). Rebuildable from the
-- events: each carries its object's workspace and project.
CREATE TABLE studio_objects (
    object_id       text        PRIMARY KEY,
    organization_id text        NOT NULL,
    workspace_id    text        NOT NULL,
    kind            text        NOT NULL CHECK (kind IN ('project', 'composition', 'render_job', 'generation', 'asset', 'template', 'preset', 'quota_warning')),
    project_id      text,
    object_key      text,       -- an asset's bytes in the object store
    live            boolean     NOT NULL DEFAULT true,
    created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX studio_objects_workspace ON studio_objects (workspace_id, kind) WHERE live;
CREATE INDEX studio_objects_project ON studio_objects (project_id, kind, created_at) WHERE live;
CREATE INDEX studio_objects_organization ON studio_objects (organization_id);

-- Workspaces deleted through the studio (workspaces.delete): nothing new is
-- created in them, whatever a lagging slug lookup said.
CREATE TABLE studio_deleted_workspaces (
    workspace_id    text        PRIMARY KEY,
    organization_id text        NOT NULL,
    deleted_at      timestamptz NOT NULL DEFAULT now()
);

-- The month's count of each quota'd action per workspace, moved in the
-- transaction of the command it counts (the command's event carries the
-- count after it: the record the read model shows).
CREATE TABLE studio_quota_usage (
    workspace_id    text NOT NULL,
    action          text NOT NULL,
    period          text NOT NULL,
    organization_id text NOT NULL,
    used            int  NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, action, period)
);
CREATE INDEX studio_quota_usage_organization ON studio_quota_usage (organization_id);

-- Object-store keys whose bytes are to be deleted: written in the
-- transaction that forgets them (an asset deleted, an organization erased),
-- drained right after it commits and by the sweeper, so bytes are never
-- deleted before their record and never left behind after a crash.
CREATE TABLE studio_object_deletions (
    object_key      text        PRIMARY KEY,
    organization_id text        NOT NULL,
    requested_at    timestamptz NOT NULL DEFAULT now()
);
