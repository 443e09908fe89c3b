package brands

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strconv"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/brands"
	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/internal/objectstore"
)

// readFile reads an uploaded file whole (fonts and images are parsed from
// memory), at most max bytes: 413 past it, with nothing kept.
func readFile(body io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(body, max+1))
	if err != nil {
		return nil, err // the kernel's bounded body says what it was (413, 408, a client that left)
	}
	if int64(len(data)) > max {
		return nil, errs.TooLarge("payload_too_large", "the file is larger than "+strconv.FormatInt(max, 10)+" bytes; nothing was stored")
	}
	if len(data) == 0 {
		return nil, errs.InvalidField("/body", "the file is empty")
	}
	return data, nil
}

func digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// put puts a checked file's bytes under its key.
func (h *Handlers) put(ctx context.Context, key, contentType string, data []byte) error {
	if h.objects == nil {
		return errs.Unavailable("brands: no object store for kit files", nil)
	}
	_, err := h.objects.Put(ctx, key, bytes.NewReader(data), objectstore.PutOptions{ContentType: contentType, Size: int64(len(data))})
	if err != nil {
		if objectstore.KindOf(err) == objectstore.KindUnavailable {
			return errs.Unavailable("the object store is unavailable", err)
		}
		return err
	}
	return nil
}

// FileLink is a signed, expiring link to a kit file's bytes.
type FileLink struct {
	URL       string `json:"url"`
	ExpiresAt string `json:"expiresAt"`
}

// FileRef names a file of a kit.
type FileRef struct {
	KitID  string `json:"kitId"`
	FileID string `json:"fileId"`
}

// Link signs a download of a font or logo of a kit the caller sees (its
// own, or a library kit's file of a published version).
func (h *Handlers) Link(ctx context.Context, kind string, sees func(domain.Kit) bool, in FileRef) (FileLink, error) {
	history, err := h.store.Load(ctx, in.KitID)
	if err != nil {
		return FileLink{}, errs.Unavailable("the brand kits' store is unavailable", err)
	}
	km, err := domain.LoadKit(commands.Recorded(history))
	if err != nil {
		return FileLink{}, err
	}
	if !km.Exists() || km.State().Deleted || !sees(km.State()) {
		return FileLink{}, errs.NotFound("brand kit")
	}
	name, ok := km.File(kind, in.FileID)
	if !ok {
		return FileLink{}, errs.NotFound(kind)
	}
	dl, err := h.objects.PresignDownload(ctx, ObjectKey(km.State().OrganizationID, kind, in.FileID),
		objectstore.DownloadOptions{Expires: h.cfg.DownloadTTL, Filename: name})
	if err != nil {
		if objectstore.KindOf(err) == objectstore.KindNotFound {
			return FileLink{}, errs.NotFound(kind)
		}
		return FileLink{}, errs.Unavailable("the object store is unavailable", err)
	}
	return FileLink{URL: dl.URL, ExpiresAt: dl.ExpiresAt.UTC().Format("2006-01-02T15:04:05Z07:00")}, nil
}

// Open reads a kit file's bytes (a renderer loading a pinned version's
// font or logo); the version named it, so it is the kit's.
func (h *Handlers) Open(ctx context.Context, organizationID, kind, fileID string, max int64) ([]byte, error) {
	obj, err := h.objects.Get(ctx, ObjectKey(organizationID, kind, fileID))
	if err != nil {
		return nil, err
	}
	defer obj.Body.Close()
	data, err := io.ReadAll(io.LimitReader(obj.Body, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, errors.New("brands: a kit file is larger than its bound")
	}
	return data, nil
}
