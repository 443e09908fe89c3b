package stripe

import "strings"

// Operation is one entry of the seed's payments.processor.invoke enum and
// where it goes on Stripe's API.
type Operation struct {
	Name   string // the seed's name: "checkout.sessions.create"
	Method string // GET, POST or DELETE
	// Path is Stripe's path; a "{member}" segment is filled from that params
	// member (PathParam).
	Path string
	// PathParam names the params member that fills the path id, "" when the
	// path has none.
	PathParam string
	// ConnectManagement marks the operations with which the platform
	// manages connected accounts (accounts.*, account_links, login_links):
	// they name the account themselves, and params.stripe_account is
	// refused.
	ConnectManagement bool
}

// operations is the one table that drives requests (and the fake's routes).
// Read only.
var operations = [...]Operation{
	{Name: "checkout.sessions.create", Method: "POST", Path: "/v1/checkout/sessions"},
	{Name: "checkout.sessions.retrieve", Method: "GET", Path: "/v1/checkout/sessions/{id}", PathParam: "id"},
	{Name: "checkout.sessions.expire", Method: "POST", Path: "/v1/checkout/sessions/{id}/expire", PathParam: "id"},
	{Name: "prices.create", Method: "POST", Path: "/v1/prices"},
	{Name: "products.create", Method: "POST", Path: "/v1/products"},
	{Name: "subscription_items.create", Method: "POST", Path: "/v1/subscription_items"},
	{Name: "subscription_items.update", Method: "POST", Path: "/v1/subscription_items/{id}", PathParam: "id"},
	{Name: "subscription_items.delete", Method: "DELETE", Path: "/v1/subscription_items/{id}", PathParam: "id"},
	{Name: "subscription_items.create_usage_record", Method: "POST", Path: "/v1/subscription_items/{subscription_item}/usage_records", PathParam: "subscription_item"},
	{Name: "payment_intents.create", Method: "POST", Path: "/v1/payment_intents"},
	{Name: "payment_intents.retrieve", Method: "GET", Path: "/v1/payment_intents/{id}", PathParam: "id"},
	{Name: "payment_intents.cancel", Method: "POST", Path: "/v1/payment_intents/{id}/cancel", PathParam: "id"},
	{Name: "refunds.create", Method: "POST", Path: "/v1/refunds"},
	{Name: "billing_portal.sessions.create", Method: "POST", Path: "/v1/billing_portal/sessions"},
	{Name: "subscriptions.retrieve", Method: "GET", Path: "/v1/subscriptions/{id}", PathParam: "id"},
	{Name: "subscriptions.update", Method: "POST", Path: "/v1/subscriptions/{id}", PathParam: "id"},
	{Name: "invoices.create_preview", Method: "POST", Path: "/v1/invoices/create_preview"},
	{Name: "subscriptions.create", Method: "POST", Path: "/v1/subscriptions"},
	{Name: "setup_intents.create", Method: "POST", Path: "/v1/setup_intents"},
	{Name: "customers.create", Method: "POST", Path: "/v1/customers"},
	{Name: "customers.retrieve", Method: "GET", Path: "/v1/customers/{id}", PathParam: "id"},
	{Name: "accounts.create", Method: "POST", Path: "/v1/accounts", ConnectManagement: true},
	{Name: "accounts.retrieve", Method: "GET", Path: "/v1/accounts/{id}", PathParam: "id", ConnectManagement: true},
	{Name: "accounts.update", Method: "POST", Path: "/v1/accounts/{id}", PathParam: "id", ConnectManagement: true},
	{Name: "account_links.create", Method: "POST", Path: "/v1/account_links", ConnectManagement: true},
	{Name: "login_links.create", Method: "POST", Path: "/v1/accounts/{account}/login_links", PathParam: "account", ConnectManagement: true},
}

// Operations lists every operation, in the seed's order (a copy).
func Operations() []Operation { return append([]Operation(nil), operations[:]...) }

// LookupOperation finds an operation by its seed name.
func LookupOperation(name string) (Operation, bool) {
	for _, op := range operations {
		if op.Name == name {
			return op, true
		}
	}
	return Operation{}, false
}

// MatchPath finds the operation serving method and path, and the path id
// it names ("" when the path has none). The fake routes with it, so the
// fake serves exactly the table.
func MatchPath(method, path string) (op Operation, id string, ok bool) {
	got := strings.Split(path, "/")
	for _, op := range operations {
		if op.Method != method {
			continue
		}
		want := strings.Split(op.Path, "/")
		if len(want) != len(got) {
			continue
		}
		id, match := "", true
		for i, seg := range want {
			switch {
			case strings.HasPrefix(seg, "{"):
				if got[i] == "" {
					match = false
				}
				id = got[i]
			case seg != got[i]:
				match = false
			}
			if !match {
				break
			}
		}
		if match {
			return op, id, true
		}
	}
	return Operation{}, "", false
}

// path renders the operation's path with its id (already checked by
// validID, so it needs no escaping).
func (op Operation) path(id string) string {
	if op.PathParam == "" {
		return op.Path
	}
	return strings.Replace(op.Path, "{"+op.PathParam+"}", id, 1)
}
