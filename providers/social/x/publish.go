package x

import (
	"context"
	"net/http"

	"github.com/platform/backend/providers/social"
)

type tweetRequest struct {
	Text  string       `json:"text,omitempty"`
	Reply *tweetReply  `json:"reply,omitempty"`
	Media *tweetMedias `json:"media,omitempty"`
}

type tweetReply struct {
	InReplyToTweetID string `json:"in_reply_to_tweet_id"`
}

type tweetMedias struct {
	MediaIDs []string `json:"media_ids"`
}

// Publish uploads the images, then creates the post (a reply when ReplyTo
// is set). Only the create is the post: a lost upload answer costs an
// orphan upload, never a post.
func (c *Client) Publish(ctx context.Context, conn social.Connection, p social.Post) (social.Published, error) {
	if err := social.CheckPost(name, c.Info().Capabilities, conn, p); err != nil {
		return social.Published{}, err
	}
	body := tweetRequest{Text: social.TextWithLink(p)}
	if p.ReplyTo != "" {
		body.Reply = &tweetReply{InReplyToTweetID: p.ReplyTo}
	}
	for _, m := range p.Media {
		id, err := c.upload(ctx, conn, m)
		if err != nil {
			return social.Published{}, err
		}
		if body.Media == nil {
			body.Media = &tweetMedias{}
		}
		body.Media.MediaIDs = append(body.Media.MediaIDs, id)
	}
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	req := social.Request{Op: "publish", Method: http.MethodPost, URL: c.cfg.APIBaseURL + "/2/tweets",
		Bearer: conn.BearerToken(), JSON: body, Creates: true}
	a, err := c.call.DoJSON(ctx, req, classify, &out)
	if err != nil {
		return social.Published{}, err
	}
	if out.Data.ID == "" {
		return social.Published{}, c.call.Malformed(req, a.Status)
	}
	return social.Published{ID: out.Data.ID, URL: c.postURL(conn.Account.Handle, out.Data.ID)}, nil
}

// upload sends one image (POST /2/media/upload, multipart, tweet_image)
// and answers its media id.
func (c *Client) upload(ctx context.Context, conn social.Connection, m social.Media) (string, error) {
	data, err := c.call.ReadMedia(ctx, m)
	if err != nil {
		return "", err
	}
	body, contentType, err := social.Multipart([]social.Field{{Name: "media_category", Value: "tweet_image"}},
		"media", social.FileName(m.ContentType), m.ContentType, data)
	if err != nil {
		return "", social.Rejection(name, "upload_media", social.ReasonMediaInvalid)
	}
	var out struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	req := social.Request{Op: "upload_media", Method: http.MethodPost, URL: c.cfg.APIBaseURL + "/2/media/upload",
		Bearer: conn.BearerToken(), Body: body, ContentType: contentType}
	a, err := c.call.DoJSON(ctx, req, classify, &out)
	if err != nil {
		return "", err
	}
	if out.Data.ID == "" {
		return "", c.call.Malformed(req, a.Status)
	}
	return out.Data.ID, nil
}
