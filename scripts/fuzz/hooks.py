"""Schemathesis hooks of the fuzzing gate (SCHEMATHESIS_HOOKS=hooks, set by e2e.TestSchemathesis).

Idempotency-Key: the same key with a different request is 422
idempotency_key_reused, by design (IETF httpapi-idempotency-key-header). The
generators reuse a few values ("0000...") for every case, so a valid request
would meet a key an earlier case used. A positive case gets a fresh key of the
generated length; negative cases keep theirs, so the header's bounds are still
probed.
"""
import uuid

import schemathesis


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    headers = case.headers or {}
    key = headers.get("Idempotency-Key")
    if key is None:
        return
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(meta, "generation", None), "mode", None)
    if mode is not None and not getattr(mode, "is_positive", False):
        return
    fresh = (uuid.uuid4().hex * 8)[: max(1, min(len(key), 255))]
    headers["Idempotency-Key"] = fresh
    case.headers = headers
