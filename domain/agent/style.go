package agent

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unicode"
)

// StyleMetrics describe how a person writes, measured over their sources
// without a model: deterministic, free, and explainable (a draft's prompt
// quotes them).
type StyleMetrics struct {
	Words                int      `json:"words"`
	Sentences            int      `json:"sentences"`
	WordsPerSentence     float64  `json:"wordsPerSentence"`
	CharactersPerWord    float64  `json:"charactersPerWord"`
	QuestionShare        float64  `json:"questionShare"`    // sentences ending with ?
	ExclamationShare     float64  `json:"exclamationShare"` // sentences ending with !
	EmojiPerHundredWords float64  `json:"emojiPerHundredWords"`
	ContractionShare     float64  `json:"contractionShare"` // words with an apostrophe (don't, we're)
	FirstPersonShare     float64  `json:"firstPersonShare"` // I, me, my, we, our
	TopWords             []string `json:"topWords"`
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by for from has have i in is it its of on or our so that the
		their them they this to was we were will with you your my me us not no do does did can just than then there here what
		when which who how all any if into about more also been being would could should it's i'm we're you're don't`) {
		stopWords[w] = true
	}
}

var firstPerson = map[string]bool{"i": true, "me": true, "my": true, "mine": true, "we": true, "us": true, "our": true, "ours": true}

// Measure reads the style of texts.
func Measure(texts []string) StyleMetrics {
	m := StyleMetrics{TopWords: []string{}}
	counts := map[string]int{}
	letters, questions, exclamations, emoji, contractions, first := 0, 0, 0, 0, 0, 0
	for _, t := range texts {
		for _, sentence := range sentences(t) {
			m.Sentences++
			switch strings.TrimRightFunc(sentence, unicode.IsSpace)[len(strings.TrimRightFunc(sentence, unicode.IsSpace))-1] {
			case '?':
				questions++
			case '!':
				exclamations++
			}
		}
		for _, r := range t {
			if isEmoji(r) {
				emoji++
			}
		}
		for _, raw := range strings.Fields(t) {
			w := strings.ToLower(strings.TrimFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }))
			w = strings.Trim(w, "'")
			if w == "" {
				continue
			}
			m.Words++
			letters += len([]rune(w))
			if strings.ContainsRune(w, '\'') {
				contractions++
			}
			if firstPerson[w] {
				first++
			}
			if !stopWords[w] && len([]rune(w)) > 2 {
				counts[w]++
			}
		}
	}
	if m.Words > 0 {
		m.CharactersPerWord = round(float64(letters) / float64(m.Words))
		m.EmojiPerHundredWords = round(100 * float64(emoji) / float64(m.Words))
		m.ContractionShare = round(float64(contractions) / float64(m.Words))
		m.FirstPersonShare = round(float64(first) / float64(m.Words))
	}
	if m.Sentences > 0 {
		m.WordsPerSentence = round(float64(m.Words) / float64(m.Sentences))
		m.QuestionShare = round(float64(questions) / float64(m.Sentences))
		m.ExclamationShare = round(float64(exclamations) / float64(m.Sentences))
	}
	type wc struct {
		w string
		n int
	}
	var all []wc
	for w, n := range counts {
		if n > 1 {
			all = append(all, wc{w, n})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n || all[i].n == all[j].n && all[i].w < all[j].w })
	for i := 0; i < len(all) && i < 10; i++ {
		m.TopWords = append(m.TopWords, all[i].w)
	}
	return m
}

// Summary says the metrics in words, for people and for a draft's prompt.
func (m StyleMetrics) Summary() string {
	if m.Words == 0 {
		return "Not enough text to describe a style."
	}
	var parts []string
	switch {
	case m.WordsPerSentence < 12:
		parts = append(parts, "short, direct sentences")
	case m.WordsPerSentence > 22:
		parts = append(parts, "long, developed sentences")
	default:
		parts = append(parts, "sentences of moderate length")
	}
	if m.ContractionShare > 0.03 || m.EmojiPerHundredWords > 0.5 {
		parts = append(parts, "a casual, conversational register")
	} else {
		parts = append(parts, "a measured, formal register")
	}
	if m.ExclamationShare > 0.15 {
		parts = append(parts, "frequent enthusiasm (exclamations)")
	}
	if m.QuestionShare > 0.15 {
		parts = append(parts, "questions addressed to the reader")
	}
	if m.FirstPersonShare > 0.04 {
		parts = append(parts, "a personal voice (first person)")
	}
	s := fmt.Sprintf("Writes in %s; about %.0f words a sentence", strings.Join(parts, ", "), m.WordsPerSentence)
	if len(m.TopWords) > 0 {
		s += "; often uses: " + strings.Join(m.TopWords, ", ")
	}
	return s + "."
}

func sentences(t string) []string {
	var out []string
	start := 0
	rs := []rune(t)
	for i, r := range rs {
		if r == '.' || r == '!' || r == '?' || r == '\n' {
			if s := strings.TrimSpace(string(rs[start : i+1])); len([]rune(s)) > 1 && strings.IndexFunc(s, unicode.IsLetter) >= 0 {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(rs[start:])); strings.IndexFunc(s, unicode.IsLetter) >= 0 {
		out = append(out, s)
	}
	return out
}

func isEmoji(r rune) bool {
	return r >= 0x1F300 && r <= 0x1FAFF || r >= 0x2600 && r <= 0x27BF
}

func round(f float64) float64 { return math.Round(f*100) / 100 }
