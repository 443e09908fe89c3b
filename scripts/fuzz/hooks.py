"""Schemathesis hooks of the fuzzing gate (SCHEMATHESIS_HOOKS=<this file>, set by e2e.TestSchemathesis).

Idempotency-Key: the same key with a different request is 422
idempotency_key_reused, by design (IETF httpapi-idempotency-key-header). The
generators draw short keys ("", "0", "00", ...) and reuse them for every case,
so a valid request would meet a key an earlier case used. A schema-valid case
that carries a key gets a fresh one (a UUID: unique, 32 characters, within the
documented maxLength of 255); negative cases keep theirs, so the header's
bounds are still probed.

Rules JSON Schema cannot state: a schema-valid request refused with 422 (400
where a seed says so: publishing's creates) is a
finding (positive_data_acceptance) unless every error the problem names is one
of the rules listed in KNOWN_422 for that operation: rules that depend on the
clock, on another member or on the server's configuration. Anything else in
the same answer (another pointer, another sentence) keeps the failure.
"""
import json
import re
import uuid

import schemathesis

IDEMPOTENCY_KEY = "Idempotency-Key"

# A URL with credentials (user:password@: a status check URL, a post's link, a
# seed's source) is refused by the domain's URL check (domain/text.ParseURL,
# which the outbound policy's check starts with): a pattern refusing it would quote
# the password back in the problem, as the gateway's credential members avoid.
# So is a URL without a host name ("http://:80/"), which format uri admits and
# which would dial the machine itself.
_CREDENTIALS = "must not contain credentials (user:password@)"
_NO_HOST = "must be an absolute http or https URL"
_URL_CHECK = lambda *pointers: [(p, d) for p in pointers for d in (_CREDENTIALS, _NO_HOST)]
_LINK_RULES = _URL_CHECK("/link", "/thread/{i}/link")

# operationId -> [(JSON pointer, detail)] the server may answer 422 with for
# schema-valid input; a pointer is matched whole, "{i}" standing for an array
# index and "{*}" for any rest of the pointer (members below a free-form value). Keep each with its reason; docs/decisions.md lists them.
KNOWN_422 = {
    # A maintenance window must not start in the past (the clock), and must
    # end after it starts (one member against another, or against the stored
    # window when a PATCH moves only one end).
    "maintenance.schedule": [
        ("/scheduledStart", "must not be in the past"),
        ("/scheduledEnd", "must be after scheduledStart"),
    ],
    "maintenance.update": [
        ("/scheduledStart", "must not be in the past"),
        ("/scheduledEnd", "must be after scheduledStart"),
    ],
    # An IP literal host (also inet_aton spellings like "0" or "0x7f.1") is
    # judged by the outbound policy, which is configuration: which addresses
    # are internal is not the schema's to say. Credentials, no host: _URL_CHECK.
    "components.upsert": [("/checkUrl", "host is an internal address")] + _URL_CHECK("/checkUrl"),
    # Publishing (400 for the seed's "invalid create", 422 elsewhere): a
    # publish time must not be in the past (the clock); a post scheduled by
    # an update needs a publish time, which may be the stored one (state);
    # a reschedule must be in the future (the clock); a transfer's target
    # must be an organization the caller belongs to (data). Links with
    # credentials or without a host: _URL_CHECK.
    "posts.create": [("/publishAt", "must not be in the past")] + _LINK_RULES,
    "posts.update": _LINK_RULES + [
        ("/publishAt", "must not be in the past"),
        ("/publishAt", "a scheduled post needs a publish time"),
        ("/text", "an item needs text or media"),
    ],
    "content_ops.items.reschedule": [("/publishAt", "must be in the future")],
    "content_ops.items.update": _LINK_RULES,
    "brands.transfer_organization": [("/organizationId", "must be an organization you can access")],
    "brands.brand_kit.set": [("/brandKitId", "no such brand kit")],
    # The brand of a machine route comes from brandId or the X-Brand-ID
    # header: one or the other, which a body schema cannot say.
    "seeds.share": [("/brandId", "required member is missing (or name the brand in X-Brand-ID)")] + _URL_CHECK("/sourceUrl"),
    "content_strategy.suggestions.generate_from_trends": [("/brandId", "required member is missing (or name the brand in X-Brand-ID)")],
    # An image prompt the provider refuses (its content rules) is the
    # gateway's 422 "refused by the provider", passed through.
    "ai.generate_image": [("", "refused by the provider")],
    # The gateway's AI actions: a model the caller names must have a price in
    # the current price table (data: domain/gateway/prices), and the provider
    # has rules of its own (its 4xx for a request it refuses, answered 422
    # "refused by the provider"); a tool call's arguments are a string that
    # must hold a JSON object, which no schema of a string can state.
    **{op: [("/model", "the model has no price in the current price table"), ("", "refused by the provider")]
       for op in ("ai.translations.create", "ai.embeddings.create", "ai.image.describe", "ai.transcriptions.create",
                  "ai.images.create")},
    "ai.completions.create": [
        ("/model", "the model has no price in the current price table"),
        ("", "refused by the provider"),
        ("/messages/{i}/tool_calls/{i}/function/arguments", "must be a JSON object"),
        # A tool's parameters and a structured output's schema are JSON
        # Schemas: any JSON below their root, in which the kernel refuses
        # U+0000 at every depth like everywhere else; a schema cannot say "no
        # NUL in any member name or string at any depth" without a recursive
        # reference the OpenAPI document cannot carry.
        ("/tools/{i}/function/parameters{*}", "must not contain U+0000 (NUL)"),
        ("/tools/{i}/function/parameters{*}", "a member name must not contain U+0000 (NUL)"),
        ("/response_format/json_schema/schema{*}", "must not contain U+0000 (NUL)"),
        ("/response_format/json_schema/schema{*}", "a member name must not contain U+0000 (NUL)"),
    ],
    "ai.markdown.create": [("", "refused by the provider")],
    # The OpenAI- and Anthropic-compatible routes call the same client, so
    # the same rules hold under their own pointers; the open JSON below a
    # tool's schema, a structured output's schema and a tool_use block's
    # input is refused U+0000 at every depth like everywhere else. Their
    # errors are in the APIs' shapes, the failing members in error.errors.
    "openai.chat.completions.create": [
        ("/model", "the model has no price in the current price table"),
        ("", "refused by the provider"),
        ("/messages/{i}/tool_calls/{i}/function/arguments", "must be a JSON object"),
        ("/tools/{i}/function/parameters{*}", "must not contain U+0000 (NUL)"),
        ("/tools/{i}/function/parameters{*}", "a member name must not contain U+0000 (NUL)"),
        ("/response_format/json_schema/schema{*}", "must not contain U+0000 (NUL)"),
        ("/response_format/json_schema/schema{*}", "a member name must not contain U+0000 (NUL)"),
    ],
    "openai.embeddings.create": [("/model", "the model has no price in the current price table"), ("", "refused by the provider")],
    "anthropic.messages.create": [
        ("/model", "the model has no price in the current price table"),
        ("", "refused by the provider"),
        ("/tools/{i}/input_schema{*}", "must not contain U+0000 (NUL)"),
        ("/tools/{i}/input_schema{*}", "a member name must not contain U+0000 (NUL)"),
        ("/messages/{i}/content/{i}/input{*}", "must not contain U+0000 (NUL)"),
        ("/messages/{i}/content/{i}/input{*}", "a member name must not contain U+0000 (NUL)"),
    ],
    "ai.autorag.search": [("", "refused by the provider")],
    # favorites and hidden are disjoint: one array against another.
    "app_platform_auth.app_switcher.preferences.set": [
        ("/favorites/{i}", "an application cannot be a favorite and hidden"),
    ],
    # A cursor is one a page of that list gave: data, not a pattern (the
    # contacts API answers invalid input 400, as seed 002 says).
    "contacts.list": [("/cursor", "is not a cursor of this list")],
    "notes.list": [("/cursor", "is not a cursor of this list")],
    "attachments.list": [("/cursor", "is not a cursor of this list")],
    # schemathesis writes an upload's multipart body with parts the closed
    # schema does not name (names of any characters, some not writable in a
    # MIME header at all): the upload takes one part, file.
    "attachments.upload": [
        ("/body", "the body takes one part, named file"),
        ("/body", "the multipart/form-data body is malformed"),
    ],
}

# Operations whose body is text (text/csv): any bytes are a file, so a
# "wrongly typed" negative body (0, true, written as text) is a file like
# any other and cannot be refused for its type.
TEXT_BODIES = {"contacts.import"}

# The gateway's edge: rules that are data (a connection or profile an id
# names, the stored connection's provider, whether a default profile
# exists), configuration (the outbound policy's internal addresses) or the
# provider's own (its 4xx, answered "refused by the provider"), and the
# checks of credential members, which carry no pattern (a refusal would
# quote a secret). docs/decisions.md (the gateway's edge) says why.
_URL_RULES = [("/webhook_url", "host is an internal address"), ("/webhook_url", "host is neither a name nor an IP address"),
              ("/webhook_url", "must be an absolute http(s) URL without credentials"), ("/name", "must not be empty")] + _URL_CHECK("/webhook_url")
_SECRET_RULES = [("/credentials{*}", "must be 1..4096 characters on one line")]
_PROFILE_RULES = [("/connection_id", "no such connection"), ("/connection_id", "not an email connection"),
                  ("/from_email", "must be an email address"), ("/reply_to_email", "must be an email address or null")] + [
    (p, "must not be empty") for p in ("/connection_id", "/profile_name", "/from_name", "/from_email")]
_ADDRESS_RULES = [(p, "invalid address") for p in ("/from", "/to/{i}", "/cc/{i}", "/bcc/{i}", "/reply_to/{i}")]
KNOWN_422.update({
    "connections.create": _URL_RULES + _SECRET_RULES,
    "connections.update": _URL_RULES + [("/settings{*}", "this provider takes no such setting"),
                                        ("/settings{*}", "must match ^[0-9]{1,32}$"),
                                        ("/settings{*}", "must match ^[A-Za-z0-9_-]{1,64}$")],
    "connections.credentials.set": _SECRET_RULES + [("/credentials{*}", "this provider takes no such credential member"),
                                                    ("/credentials{*}", "required by this provider")],
    "email.profiles.create": _PROFILE_RULES,
    "email.profiles.update": _PROFILE_RULES,
    "email.send": _ADDRESS_RULES + [
        ("/from", "required when no email profile applies"), ("/from", "must be an address or \"Name <address>\""),
        ("/profile_id", "no such email profile"), ("/profile_id", "the email profile is not active"),
        ("/profile_id", "the profile's connection cannot send"),
        ("/attachments/{i}", "content type: not a media type"), ("", "refused by the provider")],
    "instant_message.send": [("/connection_id", "no such connection"), ("/connection_id", "the connection is not one of message_provider_a"),
                             ("", "refused by the provider")],
    "payments.processor.invoke": [("/params", "the params do not fit the operation"), ("/params{*}", "refused by the provider")],
})

# The studio: rules that are data (an object the input names must be one of
# the workspace's, or of the project's; a reviewer must be an active member
# of the organization; a render needs a composition version) or one member
# against another (a fallback provider differs from the provider, a video
# duration goes with a video output, a render's report fits its status, a
# snapshot's ids are unique, its fonts declared and its times within their
# scene). docs/decisions.md (Studio) says why.
_SNAPSHOT_RULES = [
    ("/snapshot/fonts/{i}/assetId", "no such asset in this workspace"),
    ("/snapshot/scenes/{i}/background/assetId", "no such asset in this workspace"),
    ("/snapshot/scenes/{i}/layers/{i}/assetId", "no such asset in this workspace"),
    ("/snapshot/fonts/{i}/fontId", "is declared twice"),
    ("/snapshot/scenes/{i}/sceneId", "appears twice"),
    ("/snapshot/scenes/{i}/transition/durationMs", "a fade must not outlast its scene"),
    ("/snapshot/scenes/{i}/layers/{i}/layerId", "appears twice in the scene"),
    ("/snapshot/scenes/{i}/layers/{i}/endMs", "must be within the scene"),
    ("/snapshot/scenes/{i}/layers/{i}/startMs", "must be before the layer's end"),
    ("/snapshot/scenes/{i}/layers/{i}/fontId", "is not declared in /fonts"),
    ("/snapshot/scenes", "the timeline must be at most 10 minutes long"),
]
_GENERATION_RULES = [
    ("/fallbackProvider", "must differ from provider"),
    ("/videoDurationSeconds", "only a video output has a duration"),
    ("/sceneIds/{i}", "is not a scene of the project"),
    ("/sourceAssetId", "no such asset in this workspace"),
    ("/assetId", "no such asset in this workspace"),
]
KNOWN_422.update({
    # A brand kit is data: one the caller sees (the brand service's).
    "projects.create": [("/templateId", "no such project template in this workspace"), ("/brandKitId", "no such brand kit")],
    "projects.update": [("/templateId", "no such project template in this workspace"), ("/brandKitId", "no such brand kit")],
    "projects.approvals.request": [("/reviewerUserId", "must be an active member of the organization")],
    "projects.compositions.create": _SNAPSHOT_RULES,
    "projects.compositions.update": _SNAPSHOT_RULES,
    "projects.render_jobs.create": [
        ("/compositionVersionId", "no such composition version in this project"),
        ("/compositionVersionId", "the project has no composition version to render: create one or name it"),
    ],
    "projects.render_jobs.update": [
        ("/outputAssetId", "no such asset in this workspace"),
        ("/failureReason", "only a failed render has a failure reason"),
        ("/outputAssetId", "only a completed render has an output asset"),
        ("/outputAssetId", "a completed render names its output asset"),
        ("/completedAt", "must not be before startedAt"),
    ],
    "projects.scenes.regenerate": _GENERATION_RULES,
    "projects.planning.generate": _GENERATION_RULES,
})

# Brand kits: rules that are data (a colour's name unique in its kit,
# ignoring case; a kit needs a colour to be published) or the file itself
# (a font or image is checked by parsing it). The design service: a design
# is governed by the kit version it pins (its colours, fonts and logos are
# data), the images it names must be the workspace's, ids are unique in the
# design, members depend on the layer's type, keyframes are in order within
# their page, the clip lasts at most 15 s, an export's page and time are the
# design's and its frame is bounded by its format. docs/decisions.md
# (Design) says why.
_FILE_RULES = [("/body", "the file is empty")]
_LAYER = "/pages/{i}/layers{*}"
_GOVERNED_RULES = [
    ("/pages/{i}/background", "must be a colour of the design's brand kit version"),
    ("/pages/{i}/pageId", "another page of the design has this id"),
    ("/pages", "the pages last more than 15 seconds together"),
    ("/pages/{i}/layers", "a page has at most 200 layers, group children included"),
] + [(_LAYER, d) for d in (
    "must be a colour of the design's brand kit version", "a text has a colour of the design's brand kit version",
    "must be a font family of the design's brand kit version", "the brand kit version has no font of this family in this weight and style",
    "must be a logo of the design's brand kit version", "no such image in this workspace",
    "names either a logoId of the brand kit version or an assetId of the workspace", "another layer of the design has this id",
    "only a path layer has path data", "only a text layer has text", "only an image layer has an image", "only a group has children",
    "a group has at least one layer", "the path data does not parse", "must not be empty",
    "must be within the page's duration", "keyframes are in time order, one per time", "a keyframe sets x, y, opacity, rotation or scale")]
_KIT_RULES = [("/brandKitId", "no such brand kit offered for governed design"),
              ("/brandKitVersionId", "no such published version of the brand kit")]
_EXPORT_RULES = [("/pageId", "no such page in the design"), ("/atMs", "must be within the page's duration"),
                 ("/pageId", "an mp4 plays every page: it takes no page or time"),
                 ("/scale", "the mp4's frames would be larger than 3840x2160 pixels"),
                 ("/scale", "the image would be larger than 8192x8192 pixels"), ("/quality", "only a jpeg has a quality, 1 to 100")]
KNOWN_422.update({
    "brand_kits.create": [("/colours/{i}/name", "another colour of the kit has this name")],
    "brand_kits.update": [("/colours/{i}/name", "another colour of the kit has this name")],
    "brand_kits.publish": [("/draft/colours", "a kit needs at least one colour to be published")],
    "brand_kits.fonts.upload": _FILE_RULES + [(("/body", d)) for d in (
        "must be a TTF, OTF or WOFF2 font file", "the font file does not parse", "the font file names no usable family",
        "the font file does not set text")],
    "brand_kits.logos.upload": _FILE_RULES + [("/body", "must be a PNG or JPEG image of the type it is sent as, at most 40 megapixels")],
    "designs.create": _GOVERNED_RULES + _KIT_RULES,
    "designs.update": _GOVERNED_RULES,
    "designs.duplicate": _GOVERNED_RULES,
    "designs.brand_kit.update": _GOVERNED_RULES + _KIT_RULES,
    "designs.layers.update": _GOVERNED_RULES + [(p, d) for p in ("/fill", "/stroke", "/fontFamily", "/fontWeight", "/text")
                                                for d in ("must be a colour of the design's brand kit version",
                                                          "a text has a colour of the design's brand kit version",
                                                          "must be a font family of the design's brand kit version",
                                                          "the brand kit version has no font of this family in this weight and style",
                                                          "only a text layer has text")],
    "designs.exports.create": _EXPORT_RULES,
    "designs.preview.get": _EXPORT_RULES + [("/scale", "a preview is at most 1920x1920 pixels: ask a smaller scale, or export")],
    # An upload of the design service and the studio share the operation
    # id (assets.upload): the image's check, and the studio's type check.
    "assets.upload": [("/body", "must be a PNG or JPEG image of the type it is sent as, at most 40 megapixels")],
})

# The agent: a flow's step names an action of a service (data: the
# service's descriptors, read from its /api/actions), a literal input is
# checked against that action's own input schema (data: whatever that
# schema says, each problem prefixed), an input template's references are
# JSON pointers into the trigger or earlier steps (a string's syntax and a
# number against the step's own index), and its size and depth bounds are
# of the encoded JSON; below the free-form templates, task outputs and run
# inputs the kernel refuses U+0000 at every depth (no schema can say it).
# A person profile's subject must be a member of the organization (data).
# A link (a document's, a source's, a persona action's) is refused with
# credentials or without a host (_URL_CHECK), in the agent's own words.
_NUL_RULES = lambda at: [(at + "{*}", "must not contain U+0000 (NUL)"), (at + "{*}", "a member name must not contain U+0000 (NUL)")]
_FLOW_RULES = _NUL_RULES("/steps/{i}/input") + [
    ("/steps/{i}/action", "the service has no such action (see GET /api/flow-actions)"),
    ("/steps/{i}/action", "the action answers a stream of events; a step keeps one JSON answer"),
    ("/steps/{i}/input{*}", re.compile(r"the action's input schema refuses it: .*", re.S)),
    ("/steps/{i}/input", "must be at most 16384 bytes of JSON"),
    ("/steps/{i}/input{*}", "nests deeper than 16 levels"),
    ("/steps/{i}/input{*}", "a $from object has only the members $from and default"),
    ("/steps/{i}/input{*}", "a $literal object has no other member"),
    ("/steps/{i}/input{*}", "must be a JSON pointer (a string)"),
    ("/steps/{i}/input{*}", "a JSON pointer starts with /"),
    ("/steps/{i}/input{*}", "a JSON pointer is at most 512 characters"),
    ("/steps/{i}/input{*}", "~ is escaped as ~0 and / as ~1 in a JSON pointer"),
    ("/steps/{i}/input{*}", "must point into /trigger or /steps/<n>"),
    ("/steps/{i}/input{*}", "must name a step: /steps/<n>/..."),
    ("/steps/{i}/input{*}", "a step is named by its index, /steps/<n>"),
    ("/steps/{i}/input{*}", re.compile(r"may refer only to earlier steps \(0\.\.-?[0-9]+\)")),
]
KNOWN_422.update({
    "flows.create": _FLOW_RULES,
    "flows.update": _FLOW_RULES,
    "runs.start": _NUL_RULES("/input"),
    "tasks.complete": _NUL_RULES("/output"),
    "person_profiles.create": [("/subjectUserId", "not a member of the organization")],
    **{op: [(at, "must be an absolute http or https URL without credentials")]
       for op, at in (("knowledge.add", "/url"), ("knowledge.update", "/url"), ("person_profiles.sources.add", "/url"),
                      ("personas.save", "/actions/{i}/url"))},
})

_KNOWN = {
    op: [(re.compile("^" + re.escape(pointer).replace(re.escape("{i}"), "[0-9]+").replace(re.escape("{*}"), "(/.*)?") + "$"), detail)
         for pointer, detail in rules]
    for op, rules in KNOWN_422.items()
}


def _known(rules, error):
    if not isinstance(error, dict):
        return False
    pointer, detail = error.get("pointer"), error.get("detail")
    return isinstance(pointer, str) and isinstance(detail, str) and any(
        p.match(pointer) and (d.fullmatch(detail) if isinstance(d, re.Pattern) else detail == d) for p, d in rules)


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    headers = case.headers
    if not headers or IDEMPOTENCY_KEY not in headers:
        return
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(meta, "generation", None), "mode", None)
    if mode is not None and not mode.is_positive:
        return
    headers[IDEMPOTENCY_KEY] = uuid.uuid4().hex


@schemathesis.hook
def filter_failure(ctx, failure, case, response):
    """Keep every failure but a 422 (400 in the contacts API) of positive_data_acceptance made only of KNOWN_422 rules,
    and a negative text body accepted (TEXT_BODIES)."""
    if getattr(failure, "code", None) == "ST201" and _operation_id(case) in TEXT_BODIES and _only_body_negative(case):
        return False
    known = _KNOWN.get(_operation_id(case))
    # ST202: positive_data_acceptance, "Schema-valid request rejected".
    if not known or response is None or response.status_code not in (400, 422) or getattr(failure, "code", None) != "ST202":
        return True
    try:
        problem = json.loads(response.content)
    except (ValueError, TypeError):
        return True
    if not isinstance(problem, dict):
        return True
    if isinstance(problem.get("error"), dict):
        # OpenAI's {"error": {..., "code", "errors"}} or Anthropic's
        # {"type": "error", "error": {"type", "message", "errors"}}.
        problem = problem["error"]
        if problem.get("code", "invalid_input") != "invalid_input" or problem.get("type") not in ("invalid_request_error", None):
            return True
    elif problem.get("code") != "invalid_input":
        return True
    errors = problem.get("errors")
    if not isinstance(errors, list) or not errors:
        return True
    return not all(_known(known, e) for e in errors)


def _only_body_negative(case):
    components = getattr(getattr(case, "meta", None), "components", None) or {}
    negative = [loc for loc, info in components.items() if info.mode.is_negative]
    return bool(negative) and all(getattr(loc, "value", loc) == "body" for loc in negative)


def _operation_id(case):
    definition = getattr(case.operation, "definition", None)
    raw = getattr(definition, "raw", None)
    if isinstance(raw, dict):
        return raw.get("operationId")
    return None
