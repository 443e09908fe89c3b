package studio

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
)

// Asset kinds, from the content type.
const (
	AssetImage   = "image"
	AssetVideo   = "video"
	AssetAudio   = "audio"
	AssetFont    = "font"
	AssetArchive = "archive" // a png_sequence render's zip
)

// AssetTypes are the content types an asset may have, with their kind.
var AssetTypes = map[string]string{
	"image/png": AssetImage, "image/jpeg": AssetImage, "image/gif": AssetImage, "image/webp": AssetImage,
	"video/mp4": AssetVideo, "video/quicktime": AssetVideo, "video/webm": AssetVideo,
	"audio/mpeg": AssetAudio, "audio/wav": AssetAudio, "audio/ogg": AssetAudio,
	"font/ttf": AssetFont, "font/otf": AssetFont, "font/woff": AssetFont, "font/woff2": AssetFont,
	"application/zip": AssetArchive,
}

// Asset sources.
const (
	SourceUpload     = "upload"
	SourceGeneration = "generation"
	SourceRender     = "render"
	SourceDuplicate  = "duplicate"
)

// Asset is a file of a workspace (optionally of a project): uploaded,
// generated, rendered or copied with a duplicated project.
type Asset struct {
	AssetID     string  `json:"assetId"`
	WorkspaceID string  `json:"workspaceId"`
	ProjectID   *string `json:"projectId"`
	Kind        string  `json:"kind"`
	ContentType string  `json:"contentType"`
	Size        int64   `json:"size"`
	SHA256      string  `json:"sha256"`
	Filename    *string `json:"filename"`
	Source      string  `json:"source"`
	// JobID and SceneID name the generation (or render) job and the scene
	// a generated asset was made for.
	JobID     *string   `json:"jobId"`
	SceneID   *string   `json:"sceneId"`
	CreatedBy string    `json:"createdBy"`
	Deleted   bool      `json:"deleted"`
	CreatedAt time.Time `json:"createdAt"`
}

// AssetModel is the write model of one asset stream.
type AssetModel struct {
	a   Asset
	key string
}

func LoadAsset(history []event.Recorded) (*AssetModel, error) {
	return assetFold.Load(&AssetModel{}, history)
}

var assetFold = event.Fold[*AssetModel]{
	AssetStored:  event.Apply(func(m *AssetModel, p AssetV1) { m.a, m.key = p.Asset, p.ObjectKey }),
	AssetDeleted: event.Apply(func(m *AssetModel, p AssetV1) { m.a, m.key = p.Asset, p.ObjectKey }),
}

func (m *AssetModel) Exists() bool      { return m.a.AssetID != "" && !m.a.Deleted }
func (m *AssetModel) State() Asset      { return m.a }
func (m *AssetModel) ObjectKey() string { return m.key }

// In reports whether the asset is one of the workspace's.
func (m *AssetModel) In(workspaceID string) error {
	if !m.Exists() || m.a.WorkspaceID != workspaceID {
		return errs.NotFound("asset")
	}
	return nil
}

// Store records an asset whose bytes are stored under key.
func (m *AssetModel) Store(a Asset, key string) ([]event.Change, error) {
	var f fields
	kind, ok := AssetTypes[a.ContentType]
	if !ok {
		f.add("/contentType", "must be one of the studio's asset types (images, videos, audio, fonts, zip)")
	}
	f.line("/filename", a.Filename, 255)
	if err := f.err(); err != nil {
		return nil, err
	}
	if m.a.AssetID != "" {
		return nil, errs.Conflict("asset_exists", "the asset already exists")
	}
	a.Kind = kind
	return []event.Change{event.New(AssetStored, AssetV1{Asset: a, ObjectKey: key})}, nil
}

// Delete removes the asset from every read (its bytes are deleted once the
// event is recorded).
func (m *AssetModel) Delete() ([]event.Change, error) {
	if !m.Exists() {
		return nil, errs.NotFound("asset")
	}
	next := m.a
	next.Deleted = true
	return []event.Change{event.New(AssetDeleted, AssetV1{Asset: next, ObjectKey: m.key})}, nil
}

// Preview tokens: a public link to an asset's bytes for a while, signed
// with the studio's preview key over the asset, the expiry and the
// workspace. PreviewToken makes one; PreviewValid checks one in constant
// time. Any mismatch (another asset, workspace or expiry, an altered or
// expired token) is the same refusal.

// PreviewToken signs an asset's preview until expiresAt (Unix seconds).
func PreviewToken(key []byte, assetID, workspaceID string, expiresAt int64) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte("studio-preview\x00" + assetID + "\x00" + strconv.FormatInt(expiresAt, 10) + "\x00" + workspaceID))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// PreviewValid checks a token and its expiry (as the URL carries it) at now.
func PreviewValid(key []byte, assetID, workspaceID, expiresAt, token string, now time.Time) bool {
	exp, err := strconv.ParseInt(strings.TrimSpace(expiresAt), 10, 64)
	want := PreviewToken(key, assetID, workspaceID, exp)
	// Compared before the other checks, so every refusal costs the same.
	same := hmac.Equal([]byte(want), []byte(token))
	return err == nil && same && now.Unix() < exp
}
