package publishing

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/text"
	httpapi "github.com/platform/backend/http"
)

// HeaderBrandID names the brand a machine key acts for (seed 002).
const HeaderBrandID = "X-Brand-ID"

// Seed 002 marks each publishing route B (a bearer token) or B, K (a
// machine API key is also accepted in X-Api-Key, with the brand named in
// X-Brand-ID). The kernel validates whichever credential comes; these
// wrappers hold the route to its mark.

// bearerOnly refuses the X-Api-Key header on a route the seed marks B only:
// 401, as for no credential.
func bearerOnly(a httpapi.Action) httpapi.Action {
	next := a.Handle
	a.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		if machineKey(c.Request) {
			return httpapi.Reply{}, errs.AuthenticationRequired("this route takes a bearer token, not X-Api-Key")
		}
		return next(ctx, c)
	}
	return a
}

// machine accepts a machine key in X-Api-Key on a route marked K: the key
// acts for the brand in X-Brand-ID (required with X-Api-Key, optional with
// a bearer token), which becomes the input's brandId.
func machine(a httpapi.Action) httpapi.Action { return machineRoute(a, false) }

// machineBrand is machine for an action that acts on one brand: brandId in
// the input or X-Brand-ID (the schema cannot require a member a header may
// give, so the check is here).
func machineBrand(a httpapi.Action) httpapi.Action { return machineRoute(a, true) }

func machineRoute(a httpapi.Action, needsBrand bool) httpapi.Action {
	next := a.Handle
	a.Handle = func(ctx context.Context, c *httpapi.Call) (httpapi.Reply, error) {
		brand := c.Request.Header.Get(HeaderBrandID)
		if brand == "" && needsBrand {
			var in struct {
				BrandID string `json:"brandId"`
			}
			if err := json.Unmarshal(c.Input, &in); err != nil || in.BrandID == "" {
				return httpapi.Reply{}, errs.InvalidField("/brandId", "required member is missing (or name the brand in "+HeaderBrandID+")")
			}
		}
		if brand == "" {
			if machineKey(c.Request) {
				return httpapi.Reply{}, errs.InvalidField("/header/"+HeaderBrandID, "a machine key names its brand in "+HeaderBrandID)
			}
			return next(ctx, c)
		}
		if f := text.Line(nil, "/header/"+HeaderBrandID, brand, text.MaxID); len(f) > 0 {
			return httpapi.Reply{}, errs.Invalid(f...)
		}
		var in map[string]any
		if err := json.Unmarshal(c.Input, &in); err != nil || in == nil {
			in = map[string]any{}
		}
		if v, ok := in["brandId"].(string); ok && v != brand {
			return httpapi.Reply{}, errs.InvalidField("/header/"+HeaderBrandID, "names another brand than brandId")
		}
		in["brandId"] = brand
		raw, err := json.Marshal(in)
		if err != nil {
			return httpapi.Reply{}, err
		}
		c.Input = raw
		return next(ctx, c)
	}
	return a
}

// machineKey: the credential the kernel validated came in X-Api-Key (a
// bearer token, when both are sent, is the one used).
func machineKey(r *http.Request) bool {
	return r.Header.Get(httpapi.HeaderAPIKey) != "" && !strings.HasPrefix(strings.ToLower(r.Header.Get("Authorization")), "bearer ")
}
