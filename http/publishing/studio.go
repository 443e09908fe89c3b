package publishing

import (
	"context"
	"net/http"

	"github.com/platform/backend/commands"
	pubcmd "github.com/platform/backend/commands/publishing"
	"github.com/platform/backend/domain/principal"
	domain "github.com/platform/backend/domain/publishing"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
	view "github.com/platform/backend/projections/publishing"
)

// TrendItem is a normalized trend or shared-seed item of a brand.
type TrendItem struct {
	ID        string   `json:"id"`
	Kind      string   `json:"kind"` // seed (the only source so far)
	Title     string   `json:"title"`
	Text      string   `json:"text"`
	SourceURL *string  `json:"source_url"`
	Source    string   `json:"source"`
	Tags      []string `json:"tags"`
	At        string   `json:"at"`
}

// Trends, SeedList: answers.
type (
	Trends struct {
		Items []TrendItem `json:"items"`
	}
	SeedList struct {
		Seeds []domain.Seed `json:"seeds"`
	}
)

var (
	sourceItemSchema = string(httpapi.Object(nil, map[string]string{"title": httpapi.LineSchema(0, text.MaxTitle),
		"text": httpapi.TextSchema(0, domain.MaxText), "sourceUrl": linkSchema}))
	tagsSchema = `{"type":"array","maxItems":20,"items":` + httpapi.LineSchema(1, 60) + `}`
)

func (d Deps) studioActions() []httpapi.Action {
	return []httpapi.Action{
		bearerOnly(httpapi.Command(httpapi.Action{
			Name: "ai.generate_image", Method: http.MethodPost, Path: "/api/ai/generate-image", Permission: "posts:write",
			Summary:      "Generate an image through the usage gateway (metered, spend caps); kept as a media file. An upstream rate limit is 429 with Retry-After",
			OutputSchema: httpapi.OutputOf(pubcmd.GeneratedMedia{}, mediaOpts("media.")...), Problems: []int{http.StatusPaymentRequired, http.StatusBadGateway, http.StatusGatewayTimeout},
			InputSchema: httpapi.Object([]string{"prompt"}, map[string]string{"brandId": idSchema, "prompt": httpapi.TextSchema(1, 4000),
				"size": enum("1024x1024", "1024x1536", "1536x1024")}),
		}, d.generateImage)),
		machineBrand(httpapi.Command(httpapi.Action{
			Name: "content_strategy.suggestions.generate_from_trends", Method: http.MethodPost,
			Path: "/api/content-strategy/suggestions/generate-from-trends", Permission: "posts:write", SuccessStatus: http.StatusCreated,
			Summary:      "Platform-specific suggestion drafts from supplied trend or seed items, through the gateway; they await approval in the content-ops queue",
			OutputSchema: httpapi.OutputOf(pubcmd.Suggestions{}, postOptions("suggestions[].")...), Problems: []int{http.StatusPaymentRequired, http.StatusBadGateway, http.StatusGatewayTimeout},
			InputSchema: httpapi.Object([]string{"items", "platforms"}, map[string]string{"brandId": idSchema,
				"items":     `{"type":"array","minItems":1,"maxItems":20,"items":` + sourceItemSchema + `}`,
				"platforms": `{"type":"array","minItems":1,"maxItems":6,"uniqueItems":true,"items":` + networkSchema + `}`}),
		}, d.suggest)),
		machine(httpapi.Query(httpapi.Action{
			Name: "trends.list", Method: http.MethodGet, Path: "/api/trends", Permission: "analytics:read", ReadOnly: true,
			Summary: "Normalized trend or shared-seed items of a brand", ReadModel: view.Name, OutputSchema: httpapi.OutputOf(Trends{}),
			InputSchema: contentQueryIn,
		}, d.trends)),
		machine(httpapi.Query(httpapi.Action{
			Name: "seeds.list", Method: http.MethodGet, Path: "/api/seeds", Permission: "posts:read", ReadOnly: true,
			Summary: "Shared seeds of a brand, newest first", ReadModel: view.Name, OutputSchema: httpapi.OutputOf(SeedList{}),
			InputSchema: contentQueryIn,
		}, d.seeds)),
		machineBrand(httpapi.Command(httpapi.Action{
			Name: "seeds.share", Method: http.MethodPost, Path: "/api/seeds/share", Permission: "posts:write", SuccessStatus: http.StatusCreated,
			Summary: "Save a shared source item as a reusable seed of a brand", OutputSchema: httpapi.OutputOf(domain.Seed{}),
			InputSchema: anyRequired(httpapi.Object(nil, map[string]string{"brandId": idSchema, "title": httpapi.LineSchema(0, text.MaxTitle),
				"text": httpapi.TextSchema(0, domain.MaxText), "sourceUrl": linkSchema, "source": httpapi.LineSchema(1, 40), "tags": tagsSchema}),
				"title", "text"),
		}, d.Commands.ShareSeed)),
	}
}

func (d Deps) generateImage(ctx context.Context, m commands.Meta, in pubcmd.GenerateImageIn) (commands.Result[pubcmd.GeneratedMedia], error) {
	return d.Studio.GenerateImage(ctx, m, in)
}

func (d Deps) suggest(ctx context.Context, m commands.Meta, in pubcmd.SuggestIn) (commands.Result[pubcmd.Suggestions], error) {
	return d.Studio.Suggest(ctx, m, in)
}

func (d Deps) seeds(ctx context.Context, p principal.Principal, in ContentQuery) (SeedList, error) {
	list, err := d.Queries.Seeds(ctx, p.OrganizationID, in.BrandID, pageSize(in.Limit))
	return SeedList{Seeds: list}, err
}

// trends normalizes the brand's shared seeds as trend items: no trend
// provider is connected, so seeds are the brand's trend source.
func (d Deps) trends(ctx context.Context, p principal.Principal, in ContentQuery) (Trends, error) {
	list, err := d.Queries.Seeds(ctx, p.OrganizationID, in.BrandID, pageSize(in.Limit))
	if err != nil {
		return Trends{}, err
	}
	out := Trends{Items: []TrendItem{}}
	for _, s := range list {
		out.Items = append(out.Items, TrendItem{ID: s.SeedID, Kind: "seed", Title: s.Title, Text: s.Text, SourceURL: s.SourceURL,
			Source: s.Source, Tags: s.Tags, At: s.SharedAt.UTC().Format("2006-01-02T15:04:05Z07:00")})
	}
	return out, nil
}
