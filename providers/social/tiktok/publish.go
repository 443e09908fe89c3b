package tiktok

import (
	"context"
	"net/http"
	"strconv"

	"github.com/platform/backend/internal/retry"
	"github.com/platform/backend/providers/social"
)

var privacyLevels = map[social.Visibility]string{
	social.VisibilityPublic:    "PUBLIC_TO_EVERYONE",
	social.VisibilityFollowers: "FOLLOWER_OF_CREATOR",
	social.VisibilityPrivate:   "SELF_ONLY",
}

// Publish starts a direct post (video or photos, pulled from their URLs)
// and follows its status until TikTok has published it. The init is the
// post; a status that outlasts PollTimeout is an unknown outcome with the
// publish_id pending. With Post.Resume (a publish_id), no new post is
// started: the earlier one is followed.
func (c *Client) Publish(ctx context.Context, conn social.Connection, p social.Post) (social.Published, error) {
	caps := c.Info().Capabilities
	if err := social.CheckPost(name, caps, conn, p); err != nil {
		return social.Published{}, err
	}
	photo := p.Media[0].Kind == social.MediaImage
	if !photo && len(p.Media) > 1 {
		return social.Published{}, social.Rejection(name, "publish", social.ReasonTooManyMedia)
	}
	publishID := p.Resume
	if publishID == "" {
		var err error
		if publishID, err = c.initPost(ctx, conn, p, privacyLevels[social.VisibilityOr(caps, p.Visibility)], photo); err != nil {
			return social.Published{}, err
		}
	}
	return c.follow(ctx, conn, publishID, photo)
}

// initPost starts the post and answers its publish_id.
func (c *Client) initPost(ctx context.Context, conn social.Connection, p social.Post, privacy string, photo bool) (string, error) {
	text := social.TextWithLink(p)
	var body map[string]any
	path := "/v2/post/publish/video/init/"
	if photo {
		urls := make([]string, len(p.Media))
		for i, m := range p.Media {
			urls[i] = m.URL
		}
		path = "/v2/post/publish/content/init/"
		body = map[string]any{
			"post_info":   map[string]any{"title": p.Title, "description": text, "privacy_level": privacy, "disable_comment": false, "auto_add_music": true},
			"source_info": map[string]any{"source": "PULL_FROM_URL", "photo_cover_index": 0, "photo_images": urls},
			"post_mode":   "DIRECT_POST",
			"media_type":  "PHOTO",
		}
	} else {
		body = map[string]any{
			"post_info":   map[string]any{"title": text, "privacy_level": privacy, "disable_duet": false, "disable_comment": false, "disable_stitch": false},
			"source_info": map[string]any{"source": "PULL_FROM_URL", "video_url": p.Media[0].URL},
		}
	}
	var out struct {
		Data struct {
			PublishID string `json:"publish_id"`
		} `json:"data"`
	}
	req := social.Request{Op: "publish", Method: http.MethodPost, URL: c.cfg.APIBaseURL + path,
		Bearer: conn.BearerToken(), JSON: body, Creates: true}
	a, err := c.call.DoJSON(ctx, req, classify, &out)
	if err != nil {
		return "", err
	}
	if out.Data.PublishID == "" {
		return "", c.call.Malformed(req, a.Status)
	}
	return out.Data.PublishID, nil
}

// publishStatus is one status/fetch answer.
type publishStatus struct {
	Status     string  `json:"status"`
	FailReason string  `json:"fail_reason"`
	PostIDs    []int64 `json:"publicaly_available_post_id"` // TikTok's spelling
}

// follow polls the publish until it is complete or failed, or the budget
// ends (an unknown outcome: TikTok accepted it, so it will most likely
// appear).
func (c *Client) follow(ctx context.Context, conn social.Connection, publishID string, photo bool) (social.Published, error) {
	deadline := c.call.Now().Add(c.cfg.PollTimeout)
	for {
		st, err := c.status(ctx, conn, publishID)
		if err != nil {
			if e, ok := social.AsError(err); ok {
				// TikTok accepted the post; whatever stops us reading its
				// status now, its fate is unknown, not failed.
				e.Kind, e.Pending = social.KindOutcomeUnknown, publishID
			}
			return social.Published{}, err
		}
		switch st.Status {
		case "PUBLISH_COMPLETE":
			return c.published(conn, publishID, st, photo), nil
		case "FAILED":
			e := byCode("publish", st.FailReason, "", http.StatusOK)
			e.Code, e.Sent = st.FailReason, true
			return social.Published{}, e
		}
		if !c.call.Now().Add(c.cfg.PollInterval).Before(deadline) || !retry.Sleep(ctx, c.cfg.PollInterval) {
			e := social.Fail(name, "publish", social.KindOutcomeUnknown, social.ReasonProcessing, http.StatusOK)
			e.Pending = publishID
			return social.Published{}, e
		}
	}
}

// published is the post of a complete publish. A post that is not public
// (private creators, unaudited apps) gets no public id: the publish_id
// stands in and there is no URL.
func (c *Client) published(conn social.Connection, publishID string, st publishStatus, photo bool) social.Published {
	if len(st.PostIDs) == 0 {
		return social.Published{ID: publishID}
	}
	id := strconv.FormatInt(st.PostIDs[0], 10)
	return social.Published{ID: id, URL: c.postURL(conn.Account.Handle, id, photo)}
}

func (c *Client) status(ctx context.Context, conn social.Connection, publishID string) (publishStatus, error) {
	var out struct {
		Data publishStatus `json:"data"`
	}
	req := social.Request{Op: "status", Method: http.MethodPost, URL: c.cfg.APIBaseURL + "/v2/post/publish/status/fetch/",
		Bearer: conn.BearerToken(), JSON: map[string]string{"publish_id": publishID}}
	a, err := c.call.DoJSON(ctx, req, classify, &out)
	if err != nil {
		return publishStatus{}, err
	}
	if out.Data.Status == "" {
		return publishStatus{}, c.call.Malformed(req, a.Status)
	}
	return out.Data, nil
}
