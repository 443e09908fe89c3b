// Package ai is the kernel of the AI provider kind: the Provider interface the
// usage gateway calls, the normalized request and response types, raw usage
// units for metering, the one error type with the kinds the gateway needs for
// provider health and retries, capability discovery, and the registry of the
// seed's provider ids.
//
// One package per wire protocol implements Provider over HTTP, each with a
// fake server beside it (package fake) that speaks the same protocol:
//
//	providers/ai/openai     OpenAI Chat Completions, embeddings, transcriptions, images
//	providers/ai/anthropic  Anthropic Messages
//	providers/ai/gemini     Google Gemini generateContent
//	providers/ai/workersai  Cloudflare Workers AI (run, tomarkdown, AutoRAG search)
//	providers/ai/catalog    builds the adapter for a seed provider id
//	providers/ai/aifake     what every AI fake shares beyond providers/fakekit: key check, SSE pacing, answers
//
// The seed's provider ids map in order to five providers:
//
//	id             provider                    protocol   notes
//	ai_provider_1  OpenAI                      openai     every capability but markdown and AutoRAG
//	ai_provider_2  Anthropic                   anthropic  chat, stream, tools, structured, vision; no media generation
//	ai_provider_3  Google Gemini               gemini     chat, stream, tools, structured, vision, image generation
//	ai_provider_4  xAI (OpenAI-compatible)     openai     same adapter, base URL https://api.x.ai/v1
//	ai_provider_5  Cloudflare Workers AI       workersai  the seed's const for embeddings, markdown, AutoRAG, transcriptions
//
// Adapters never retry and never measure latency: the gateway decides both.
// Adapters hold no global state; everything comes from their Config.
package ai
