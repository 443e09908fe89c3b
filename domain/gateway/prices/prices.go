// Package prices holds the gateway's price tables, versioned in the repo: one
// Go table per version (v*.go). Usage events keep their raw units and the
// version they were charged by; billing views re-rate the same units with
// Current, so a new table shows what a past period would cost under it.
//
// Amounts are micro-cents (1e-6 cent) in int64: a token of a cheap model
// costs a fraction of a cent, and integers add up without drift.
package prices

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
)

// Operations a price names: what a provider bills a call for.
const (
	OpChat          = "chat"          // completions, streams, translations, image descriptions
	OpEmbedding     = "embedding"     // tokens (or characters) embedded
	OpTranscription = "transcription" // audio seconds
	OpMarkdown      = "markdown"      // documents converted
	OpRAGSearch     = "rag_search"    // searches
	OpImage         = "image"         // images generated
)

// AnyModel prices an operation whatever the model (per-call operations).
const AnyModel = "*"

// Units are what a call consumed, in the provider's raw units: the record
// every cost is computed from.
type Units struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Characters   int64 `json:"characters"`
	Messages     int64 `json:"messages"`
	AudioMS      int64 `json:"audio_ms"`
	Images       int64 `json:"images"`
	Calls        int64 `json:"calls"`
}

// Add sums two measurements.
func (u Units) Add(o Units) Units {
	return Units{InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens,
		Characters: u.Characters + o.Characters, Messages: u.Messages + o.Messages, AudioMS: u.AudioMS + o.AudioMS,
		Images: u.Images + o.Images, Calls: u.Calls + o.Calls}
}

// Max is the larger of each unit (a cut stream settles at the larger of the
// reservation and what was streamed).
func (u Units) Max(o Units) Units {
	return Units{InputTokens: max(u.InputTokens, o.InputTokens), OutputTokens: max(u.OutputTokens, o.OutputTokens),
		Characters: max(u.Characters, o.Characters), Messages: max(u.Messages, o.Messages), AudioMS: max(u.AudioMS, o.AudioMS),
		Images: max(u.Images, o.Images), Calls: max(u.Calls, o.Calls)}
}

// Zero reports whether nothing was consumed.
func (u Units) Zero() bool { return u == Units{} }

// Price is what one provider charges for one operation of one model, in
// micro-cents: per million tokens or characters, per message, per audio
// second, per image, per call.
type Price struct {
	InputPerMillion  int64
	OutputPerMillion int64
	CharsPerMillion  int64
	PerMessage       int64
	PerAudioSecond   int64
	PerImage         int64
	PerCall          int64
}

// Cost of units at this price, rounded up to a whole micro-cent: a call that
// consumed something never costs 0.
func (p Price) Cost(u Units) int64 {
	total := new(big.Int)
	add := func(units, price, per int64) {
		if units <= 0 || price <= 0 {
			return
		}
		n := new(big.Int).Mul(big.NewInt(units), big.NewInt(price))
		d := big.NewInt(per)
		q, r := new(big.Int).QuoRem(n, d, new(big.Int))
		if r.Sign() > 0 {
			q.Add(q, big.NewInt(1))
		}
		total.Add(total, q)
	}
	add(u.InputTokens, p.InputPerMillion, 1_000_000)
	add(u.OutputTokens, p.OutputPerMillion, 1_000_000)
	add(u.Characters, p.CharsPerMillion, 1_000_000)
	add(u.Messages, p.PerMessage, 1)
	add(u.AudioMS, p.PerAudioSecond, 1000)
	add(u.Images, p.PerImage, 1)
	add(u.Calls, p.PerCall, 1)
	if !total.IsInt64() {
		return math.MaxInt64
	}
	return total.Int64()
}

// Key names one price: a provider's operation on a model (AnyModel: every model).
type Key struct {
	Provider  string
	Model     string
	Operation string
}

// Table is one version of the prices.
type Table struct {
	Version string
	Prices  map[Key]Price
}

// ErrUnpriced is a provider, model or operation the table has no price for.
var ErrUnpriced = errors.New("no price")

// Lookup finds the price of an operation: the model's own, else the
// provider's price for any model of that operation.
func (t Table) Lookup(provider, model, operation string) (Price, error) {
	if p, ok := t.Prices[Key{provider, model, operation}]; ok {
		return p, nil
	}
	if p, ok := t.Prices[Key{provider, AnyModel, operation}]; ok {
		return p, nil
	}
	return Price{}, fmt.Errorf("%w for %s %s of %s in price table %s", ErrUnpriced, operation, model, provider, t.Version)
}

// Rate is the cost of units for an operation (ErrUnpriced without a price).
func (t Table) Rate(provider, model, operation string, u Units) (int64, error) {
	p, err := t.Lookup(provider, model, operation)
	if err != nil {
		return 0, err
	}
	return p.Cost(u), nil
}

// Models lists the models priced for a provider's operation (AnyModel
// included), sorted: what a client may name.
func (t Table) Models(provider, operation string) []string {
	var out []string
	for k := range t.Prices {
		if k.Provider == provider && k.Operation == operation {
			out = append(out, k.Model)
		}
	}
	slices.Sort(out)
	return out
}

// Check refuses a table with a negative price or an empty key.
func (t Table) Check() error {
	var problems []string
	for k, p := range t.Prices {
		if k.Provider == "" || k.Model == "" || k.Operation == "" {
			problems = append(problems, fmt.Sprintf("%+v: empty key member", k))
		}
		if min(p.InputPerMillion, p.OutputPerMillion, p.CharsPerMillion, p.PerMessage, p.PerAudioSecond, p.PerImage, p.PerCall) < 0 {
			problems = append(problems, fmt.Sprintf("%+v: negative price", k))
		}
	}
	if len(problems) > 0 {
		slices.Sort(problems)
		return fmt.Errorf("price table %s: %s", t.Version, strings.Join(problems, "; "))
	}
	return nil
}

// USDPerMillion converts a list price in US dollars per million units (as
// providers publish token prices) to micro-cents per million.
func USDPerMillion(usd float64) int64 { return int64(math.Round(usd * 100 * 1e6)) }

// USD converts a list price in US dollars per unit (per image, per second,
// per call) to micro-cents.
func USD(usd float64) int64 { return int64(math.Round(usd * 100 * 1e6)) }

// Versions are every table, oldest first; Current is the last.
var Versions = []Table{v20260418}

// Current is the table new calls are charged by and views re-rate with.
var Current = Versions[len(Versions)-1]

// ByVersion finds a table.
func ByVersion(v string) (Table, bool) {
	for _, t := range Versions {
		if t.Version == v {
			return t, true
		}
	}
	return Table{}, false
}
