package fake

import (
	"io"
	"net/http"
	"strings"

	"github.com/platform/backend/providers/ai/aifake"
)

// markdown serves ai/tomarkdown: multipart "files"; text files become
// their text under a heading, others a line describing them.
func (s *Server) markdown(w http.ResponseWriter, r *http.Request) {
	call, ok2 := s.begin(w, r)
	if !ok2 {
		return
	}
	r.Body = io.NopCloser(strings.NewReader(string(call.Body)))
	if err := r.ParseMultipartForm(64 << 20); err != nil || len(r.MultipartForm.File["files"]) == 0 {
		call.Fail(http.StatusBadRequest)
		return
	}
	var results []any
	for _, fh := range r.MultipartForm.File["files"] {
		f, err := fh.Open()
		if err != nil {
			call.Fail(http.StatusBadRequest)
			return
		}
		data, _ := io.ReadAll(f)
		f.Close()
		mime := fh.Header.Get("Content-Type")
		md := "# " + fh.Filename + "\n\n"
		if strings.HasPrefix(mime, "text/") {
			md += string(data)
		} else {
			md += "fake description of a " + mime + " file"
		}
		results = append(results, map[string]any{"id": "fake-" + fh.Filename, "name": fh.Filename, "mimeType": mime,
			"format": "markdown", "tokens": aifake.Words(md), "data": md})
	}
	ok(call, results)
}

// autorag serves autorag/rags/{name}/search: up to three chunks scored
// 0.9, 0.75, 0.6, cut by max_num_results and score_threshold.
func (s *Server) autorag(w http.ResponseWriter, r *http.Request) {
	call, ok2 := s.begin(w, r)
	if !ok2 {
		return
	}
	var req struct {
		Query          string `json:"query"`
		MaxNumResults  *int   `json:"max_num_results"`
		RewriteQuery   bool   `json:"rewrite_query"`
		RankingOptions *struct {
			ScoreThreshold float64 `json:"score_threshold"`
		} `json:"ranking_options"`
	}
	if !call.Decode(&req) {
		return
	}
	if req.Query == "" || (req.MaxNumResults != nil && (*req.MaxNumResults < 1 || *req.MaxNumResults > 50)) {
		call.Fail(http.StatusBadRequest)
		return
	}
	limit, threshold := 10, 0.0
	if req.MaxNumResults != nil {
		limit = *req.MaxNumResults
	}
	if req.RankingOptions != nil {
		threshold = req.RankingOptions.ScoreThreshold
	}
	query := req.Query
	if req.RewriteQuery {
		query = "rewritten: " + req.Query
	}
	data := []any{}
	for i := range min(limit, 3) {
		score := 0.9 - 0.15*float64(i)
		if score < threshold {
			break
		}
		name := r.PathValue("name") + "-doc-" + string(rune('1'+i)) + ".md"
		data = append(data, map[string]any{"file_id": "file-" + string(rune('a'+i)), "filename": name, "score": score,
			"attributes": map[string]any{"folder": "/", "timestamp": 1735689600},
			"content":    []any{map[string]any{"type": "text", "id": "chunk", "text": "fake chunk about " + req.Query}}})
	}
	ok(call, map[string]any{"object": "vector_store.search_results.page", "search_query": query, "data": data,
		"has_more": false, "next_page": nil})
}
