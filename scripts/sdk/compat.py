"""The gateway's OpenAI- and Anthropic-compatible routes, driven by the official
SDKs (pinned in requirements.txt) as their users write them: a client pointed at
the gateway's base URL with a platform API key. e2e/gateway_sdk_test.go runs it
against a real platformd whose gateway serves the sandbox's fake providers.

    python compat.py calls    every call must succeed; prints one JSON line per call
    python compat.py capped   every call must fail with the SDK's own exception
                              for a reached spend cap (HTTP 402)

Env: GATEWAY_URL (the gateway's base URL), PLATFORM_API_KEY.
Exits non-zero, naming the step, when anything is not as the SDKs' users expect.
"""

import json
import os
import struct
import sys

import anthropic
import openai

BASE = os.environ["GATEWAY_URL"].rstrip("/")
KEY = os.environ["PLATFORM_API_KEY"]

# No retries: a status the SDK would retry must show, not be hidden.
oa = openai.OpenAI(base_url=BASE + "/v1", api_key=KEY, max_retries=0, timeout=30)
an = anthropic.Anthropic(base_url=BASE, api_key=KEY, max_retries=0, timeout=30)

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather of a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def check(cond, step, detail):
    if not cond:
        print(f"FAIL {step}: {detail}", file=sys.stderr)
        sys.exit(1)


def report(step, **facts):
    print(json.dumps({"step": step, **facts}), flush=True)


def calls():
    models = oa.models.list()
    ids = [m.id for m in models.data]
    check("ai_provider_1/gpt-4o-mini" in ids, "models", ids)
    mini = next(m for m in models.data if m.id == "ai_provider_1/gpt-4o-mini")
    pricing = mini.model_extra["pricing"]
    check(pricing["input_per_million_tokens"] == "0.15" and pricing["output_per_million_tokens"] == "0.6", "models pricing", pricing)
    report("models", count=len(ids))

    # A streamed chat: deltas as they come, the usage chunk, [DONE].
    stream = oa.chat.completions.create(
        model="gpt-4o-mini",
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    text, finish, usage, chunks = "", None, None, 0
    for chunk in stream:
        chunks += 1
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            text += choice.delta.content or ""
            finish = choice.finish_reason or finish
    check(text and finish == "stop" and usage and usage.completion_tokens > 0 and chunks > 2, "streamed chat", (text, finish, usage, chunks))
    report("openai.stream", text=text, chunks=chunks, prompt_tokens=usage.prompt_tokens, completion_tokens=usage.completion_tokens)

    # A tool call, then its result back in the next turn.
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    first = oa.chat.completions.create(model="ai_provider_1/gpt-4o-mini", messages=messages, tools=[WEATHER])
    choice = first.choices[0]
    check(choice.finish_reason == "tool_calls" and choice.message.tool_calls, "tool call", first)
    call = choice.message.tool_calls[0]
    args = json.loads(call.function.arguments)
    check(call.function.name == "get_weather" and isinstance(args, dict), "tool call arguments", call)
    messages.append(choice.message)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": "sunny, 21C"})
    second = oa.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=[WEATHER])
    check("sunny, 21C" in (second.choices[0].message.content or ""), "tool result turn", second)
    report("openai.tool_call", name=call.function.name, arguments=args, answer=second.choices[0].message.content)

    # JSON mode.
    js = oa.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "a JSON object"}],
                                    response_format={"type": "json_object"})
    check(isinstance(json.loads(js.choices[0].message.content), dict), "json mode", js)
    report("openai.json_mode", content=js.choices[0].message.content)

    # Embeddings: the SDK asks for base64 by default and decodes it; float too.
    emb = oa.embeddings.create(model="text-embedding-3-small", input=["first text", "second text"])
    check(len(emb.data) == 2 and len(emb.data[0].embedding) > 0 and isinstance(emb.data[0].embedding[0], float), "embeddings", emb)
    flt = oa.embeddings.create(model="text-embedding-3-small", input="first text", encoding_format="float")
    # The same float32s: JSON writes them shortest, base64 carries their bits.
    same = len(flt.data[0].embedding) == len(emb.data[0].embedding) and all(
        struct.pack("<f", a) == struct.pack("<f", b) for a, b in zip(flt.data[0].embedding, emb.data[0].embedding))
    check(same, "embeddings float = base64", (flt.data[0].embedding[:4], emb.data[0].embedding[:4]))
    report("openai.embeddings", vectors=len(emb.data), dimensions=len(emb.data[0].embedding), prompt_tokens=emb.usage.prompt_tokens)

    # Anthropic: a message, a streamed message, a tool use.
    msg = an.messages.create(model="claude-haiku-4-5", max_tokens=64, system="Be brief.",
                             messages=[{"role": "user", "content": "Say hello"}])
    check(msg.content and msg.content[0].type == "text" and msg.stop_reason == "end_turn" and msg.usage.output_tokens > 0,
          "anthropic message", msg)
    report("anthropic.message", text=msg.content[0].text)
    with an.messages.stream(model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": "Say hello"}]) as s:
        streamed = "".join(s.text_stream)
        final = s.get_final_message()
    check(streamed and final.content[0].text == streamed and final.usage.output_tokens > 0, "anthropic stream", (streamed, final))
    report("anthropic.stream", text=streamed, output_tokens=final.usage.output_tokens)
    tool = {"name": "get_weather", "description": "The weather of a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}
    used = an.messages.create(model="claude-haiku-4-5", max_tokens=64, tools=[tool],
                              messages=[{"role": "user", "content": "Weather in Paris?"}])
    blocks = [b for b in used.content if b.type == "tool_use"]
    check(used.stop_reason == "tool_use" and blocks and blocks[0].name == "get_weather" and isinstance(blocks[0].input, dict),
          "anthropic tool use", used)
    report("anthropic.tool_use", name=blocks[0].name, input=blocks[0].input)


def capped():
    # A hard cap reached: 402 spend_cap_exceeded, raised as the SDKs' own
    # exception type (openai: APIStatusError, which it raises for a status
    # without a subclass of its own, not retried; anthropic: PaymentRequiredError).
    try:
        oa.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hello"}])
        check(False, "openai capped", "the call succeeded")
    except openai.APIStatusError as e:
        check(type(e) is openai.APIStatusError and e.status_code == 402 and e.code == "spend_cap_exceeded"
              and e.type == "insufficient_quota", "openai capped", (type(e), e.status_code, e.code, e.type, e.body))
        report("openai.capped", exception=type(e).__name__, status=e.status_code, code=e.code, message=e.message)
    try:
        stream = oa.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hello"}], stream=True)
        for _ in stream:
            pass
        check(False, "openai capped stream", "the stream succeeded")
    except openai.APIStatusError as e:
        check(e.status_code == 402 and e.code == "spend_cap_exceeded", "openai capped stream", (e.status_code, e.body))
        report("openai.capped_stream", exception=type(e).__name__, status=e.status_code)
    try:
        oa.embeddings.create(model="text-embedding-3-small", input="x")
        check(False, "openai capped embedding", "the call succeeded")
    except openai.APIStatusError as e:
        check(e.status_code == 402, "openai capped embedding", (e.status_code, e.body))
        report("openai.capped_embedding", exception=type(e).__name__, status=e.status_code)
    try:
        an.messages.create(model="claude-haiku-4-5", max_tokens=32, messages=[{"role": "user", "content": "hello"}])
        check(False, "anthropic capped", "the call succeeded")
    except anthropic.PaymentRequiredError as e:
        check(e.status_code == 402 and e.body["error"]["type"] == "billing_error", "anthropic capped", (e.status_code, e.body))
        report("anthropic.capped", exception=type(e).__name__, status=e.status_code, type=e.body["error"]["type"])


{"calls": calls, "capped": capped}[sys.argv[1]]()
