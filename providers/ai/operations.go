package ai

// EmbeddingRequest embeds texts (seed: ai.embeddings.create, 1..64 inputs).
type EmbeddingRequest struct {
	Model      string
	Input      []string
	Dimensions int // 0: the model's own
}

// EmbeddingResponse holds one vector per input, in input order.
type EmbeddingResponse struct {
	Vectors   [][]float32
	Model     string
	RequestID string
	Usage     Usage
}

// TranscriptionRequest transcribes audio (seed: ai.transcriptions.create).
type TranscriptionRequest struct {
	Model    string
	Audio    []byte
	MIMEType string // audio/mpeg, audio/wav, audio/webm ...
	Filename string // optional; some protocols infer the format from its extension
	Language string // ISO 639-1; empty: detect
	Prompt   string // initial prompt (vocabulary, style)
}

// TranscriptionResponse is the transcript.
type TranscriptionResponse struct {
	Text      string
	Language  string // as detected or forced, when the provider says
	Model     string
	RequestID string
	Usage     Usage
}

// File is one document to convert.
type File struct {
	Name     string
	MIMEType string
	Data     []byte
}

// MarkdownRequest converts documents to markdown (seed: ai.markdown.create).
type MarkdownRequest struct {
	Files []File
}

// MarkdownDocument is one converted document. Failed reports that the
// provider could not convert this one (the others may have succeeded).
type MarkdownDocument struct {
	Name     string
	MIMEType string
	Markdown string
	Tokens   int64
	Failed   bool
}

// MarkdownResponse holds one document per file, in file order.
type MarkdownResponse struct {
	Documents []MarkdownDocument
	RequestID string
	Usage     Usage // OutputTokens: the sum of the documents' tokens
}

// RAGSearchRequest searches a managed retrieval instance (seed:
// ai.autorag.search).
type RAGSearchRequest struct {
	Instance       string
	Query          string
	MaxResults     int      // 0: the provider's default; the seed allows 1..20
	RewriteQuery   *bool    // nil: the provider's default
	ScoreThreshold *float64 // nil: the provider's default; 0..1
}

// RAGResult is one matching chunk.
type RAGResult struct {
	FileID     string
	Filename   string
	Score      float64
	Attributes map[string]any
	Text       string
}

// RAGSearchResponse lists the matches, best first.
type RAGSearchResponse struct {
	SearchQuery string // the query as searched (rewritten when asked)
	Results     []RAGResult
	HasMore     bool
	NextPage    string
	RequestID   string
	Usage       Usage // the protocols report none: the gateway meters a search per call
}

// ImageRequest generates images from a prompt.
type ImageRequest struct {
	Model  string
	Prompt string
	N      int    // 0 means 1
	Size   string // "1024x1024"; empty: the provider's default
}

// GeneratedImage is one image, inline or (some protocols) as a URL.
type GeneratedImage struct {
	MIMEType      string
	Data          []byte
	URL           string
	RevisedPrompt string
}

// ImageResponse holds the generated images.
type ImageResponse struct {
	Images    []GeneratedImage
	Model     string
	RequestID string
	Usage     Usage // Images: how many were generated; tokens when the protocol reports them
}
