package ai

// Usage is what a call consumed, in the provider's raw units. The gateway
// turns it into meter units and money; adapters only report.
//
// Tokens are as the provider counted them, normalized so that InputTokens is
// every input token billed (cache reads and writes included) and
// OutputTokens every output token billed (reasoning or "thinking" tokens
// included: Gemini reports them apart).
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64 // part of InputTokens served from the provider's prompt cache
	CacheWriteTokens int64 // part of InputTokens written to the prompt cache (Anthropic)

	// InputCharacters is counted by the adapter from the request (Unicode
	// code points) for operations the provider bills by input size without
	// reporting tokens (Workers AI embeddings).
	InputCharacters int64
	// AudioSeconds is the transcribed audio's duration as the provider
	// reported it; 0 when it did not (the gateway then uses the client's
	// duration_ms).
	AudioSeconds float64
	// Images counts images generated.
	Images int
}

// Add sums two usages (a multi-call operation).
func (u Usage) Add(o Usage) Usage {
	return Usage{
		InputTokens:      u.InputTokens + o.InputTokens,
		OutputTokens:     u.OutputTokens + o.OutputTokens,
		CacheReadTokens:  u.CacheReadTokens + o.CacheReadTokens,
		CacheWriteTokens: u.CacheWriteTokens + o.CacheWriteTokens,
		InputCharacters:  u.InputCharacters + o.InputCharacters,
		AudioSeconds:     u.AudioSeconds + o.AudioSeconds,
		Images:           u.Images + o.Images,
	}
}
