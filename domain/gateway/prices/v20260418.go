package prices

// v20260418 is the first price table (the gateway descriptor's
// compatibility date). List prices in US dollars as the providers publish
// them; Workers AI's neurons converted to tokens at its published per-model
// rates. Platform keys of these providers are charged at these prices; calls
// with an organization's own key (BYOK) are charged the service fee on them.
var v20260418 = Table{Version: "2026-04-18", Prices: map[Key]Price{
	// ai_provider_1: OpenAI.
	{"ai_provider_1", "gpt-4o-mini", OpChat}:                 tokens(0.15, 0.60),
	{"ai_provider_1", "gpt-4o", OpChat}:                      tokens(2.50, 10.00),
	{"ai_provider_1", "gpt-4.1-mini", OpChat}:                tokens(0.40, 1.60),
	{"ai_provider_1", "gpt-4.1", OpChat}:                     tokens(2.00, 8.00),
	{"ai_provider_1", "text-embedding-3-small", OpEmbedding}: tokens(0.02, 0),
	{"ai_provider_1", "text-embedding-3-large", OpEmbedding}: tokens(0.13, 0),
	{"ai_provider_1", "whisper-1", OpTranscription}:          {PerAudioSecond: USD(0.006 / 60)},
	{"ai_provider_1", "gpt-image-1", OpImage}:                {PerImage: USD(0.042)},
	// ai_provider_2: Anthropic.
	{"ai_provider_2", "claude-haiku-4-5", OpChat}:  tokens(1.00, 5.00),
	{"ai_provider_2", "claude-sonnet-4-5", OpChat}: tokens(3.00, 15.00),
	{"ai_provider_2", "claude-opus-4-1", OpChat}:   tokens(15.00, 75.00),
	// ai_provider_3: Google Gemini.
	{"ai_provider_3", "gemini-2.5-flash", OpChat}:        tokens(0.30, 2.50),
	{"ai_provider_3", "gemini-2.5-pro", OpChat}:          tokens(1.25, 10.00),
	{"ai_provider_3", "gemini-2.5-flash-image", OpImage}: {PerImage: USD(0.039)},
	// ai_provider_4: xAI.
	{"ai_provider_4", "grok-3-mini", OpChat}:   tokens(0.30, 0.50),
	{"ai_provider_4", "grok-4", OpChat}:        tokens(3.00, 15.00),
	{"ai_provider_4", "grok-2-image", OpImage}: {PerImage: USD(0.07)},
	// ai_provider_5: Cloudflare Workers AI.
	{"ai_provider_5", "@cf/meta/llama-3.3-70b-instruct-fp8-fast", OpChat}:   tokens(0.29, 2.25),
	{"ai_provider_5", "@cf/meta/llama-3.2-11b-vision-instruct", OpChat}:     tokens(0.049, 0.68),
	{"ai_provider_5", "@cf/meta/llama-3.1-8b-instruct", OpChat}:             tokens(0.28, 0.83),
	{"ai_provider_5", "@cf/baai/bge-base-en-v1.5", OpEmbedding}:             tokens(0.067, 0),
	{"ai_provider_5", "@cf/baai/bge-large-en-v1.5", OpEmbedding}:            tokens(0.204, 0),
	{"ai_provider_5", "@cf/openai/whisper-large-v3-turbo", OpTranscription}: {PerAudioSecond: USD(0.0005 / 60)},
	{"ai_provider_5", "@cf/black-forest-labs/flux-1-schnell", OpImage}:      {PerImage: USD(0.0011)},
	// Markdown conversion and AutoRAG searches are billed per document and
	// per search, whatever model runs behind them.
	{"ai_provider_5", AnyModel, OpMarkdown}:  {PerCall: USD(0.0005)},
	{"ai_provider_5", AnyModel, OpRAGSearch}: {PerCall: USD(0.0005)},
}}

// tokens is a price per million input and output tokens in US dollars.
func tokens(input, output float64) Price {
	return Price{InputPerMillion: USDPerMillion(input), OutputPerMillion: USDPerMillion(output)}
}
