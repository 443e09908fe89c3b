package identity

import (
	"context"

	domain "github.com/platform/backend/domain/identity"
)

// GetMFAStatus answers the signed-in user's factor state from the write side.
func (h *Handlers) GetMFAStatus(ctx context.Context, p domain.Principal) (MFAStatus, error) {
	u, err := h.activeUser(ctx, p)
	if err != nil {
		return MFAStatus{}, err
	}
	return mfaStatus(u), nil
}
