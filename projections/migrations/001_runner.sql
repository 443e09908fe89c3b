-- Generations: each rebuild of a projection writes a new set of tables
-- (<base>_g<N>); queries read the one generation whose state is 'active'.
CREATE TABLE proj_generations (
    projection   text        NOT NULL,
    generation   int         NOT NULL,
    state        text        NOT NULL CHECK (state IN ('building', 'active', 'retired')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    activated_at timestamptz,
    PRIMARY KEY (projection, generation)
);
CREATE UNIQUE INDEX proj_generations_one_active ON proj_generations (projection) WHERE state = 'active';
CREATE UNIQUE INDEX proj_generations_one_building ON proj_generations (projection) WHERE state = 'building';

-- Kafka position per partition, written in the same transaction as the
-- read-model writes: the database, not the consumer group, is the truth.
CREATE TABLE proj_checkpoints (
    projection  text        NOT NULL,
    generation  int         NOT NULL,
    topic       text        NOT NULL,
    partition   int         NOT NULL,
    next_offset bigint      NOT NULL,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (projection, generation, topic, partition)
);

-- Highest applied version per stream: drops relay duplicates (same event at a
-- new offset) and answers read-your-writes waits.
CREATE TABLE proj_stream_versions (
    projection text   NOT NULL,
    generation int    NOT NULL,
    stream_id  text   NOT NULL,
    version    bigint NOT NULL,
    PRIMARY KEY (projection, generation, stream_id)
);

-- Events a projection could not apply: parked on the dead-letter topic and
-- counted here.
CREATE TABLE proj_failures (
    projection text        NOT NULL,
    generation int         NOT NULL,
    topic      text        NOT NULL,
    partition  int         NOT NULL,
    "offset"   bigint      NOT NULL,
    event_id   text        NOT NULL,
    event_type text        NOT NULL,
    attempts   int         NOT NULL,
    reason     text        NOT NULL,
    parked_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (projection, generation, topic, partition, "offset")
);
