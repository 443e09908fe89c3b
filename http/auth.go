package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/principal"
)

// Validator resolves a credential to its principal, or fails with 401
// (authentication_required) or 503 (dependency_unavailable): services fail
// closed and never decode claims themselves.
type Validator interface {
	Validate(ctx context.Context, token string) (principal.Principal, error)
}

// ValidatorFunc adapts the identity service's in-process validation (used when
// identity runs in the same process: the same code /validate runs).
type ValidatorFunc func(ctx context.Context, token string) (principal.Principal, error)

func (f ValidatorFunc) Validate(ctx context.Context, token string) (principal.Principal, error) {
	return f(ctx, token)
}

// RemoteValidator calls the identity service's /validate over HTTP.
type RemoteValidator struct {
	BaseURL string
	Client  *http.Client
}

func NewRemoteValidator(baseURL string) *RemoteValidator {
	return &RemoteValidator{BaseURL: strings.TrimRight(baseURL, "/"), Client: &http.Client{Timeout: 3 * time.Second}}
}

func (v *RemoteValidator) Validate(ctx context.Context, token string) (principal.Principal, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, v.BaseURL+"/validate", nil)
	if err != nil {
		return principal.Principal{}, errs.Unavailable("identity validation is misconfigured", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := v.Client.Do(req)
	if err != nil {
		return principal.Principal{}, errs.Unavailable("identity validation is unavailable", err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		var p principal.Principal
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || p.ID == "" {
			return principal.Principal{}, errs.Unavailable("identity validation answered an unreadable body", errors.Join(err, errors.New("empty principal")))
		}
		return p, nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return principal.Principal{}, errs.AuthenticationRequired("invalid credential")
	default:
		return principal.Principal{}, errs.Unavailable("identity validation is unavailable", fmt.Errorf("validate answered %d", resp.StatusCode))
	}
}

// ErrAuthRequired answers a request without a credential.
var ErrAuthRequired = errs.AuthenticationRequired("a bearer token or API key is required")
