package module

import "slices"

// TenantScopes are what a tenant's demo and test keys hold: every module's
// TenantKeyScopes.
func TenantScopes(mods []Module) []string {
	var out []string
	for _, m := range mods {
		out = appendNew(out, m.TenantKeyScopes...)
	}
	return out
}

// OperatorScopes are what an operator key holds: the tenant scopes and
// every module's platform scopes.
func OperatorScopes(mods []Module) []string {
	out := TenantScopes(mods)
	for _, m := range mods {
		out = appendNew(out, m.OperatorKeyScopes...)
	}
	return out
}

func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		if !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}
