package stripe_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/platform/backend/providers/payments/stripe"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

// seedOperations is the payments.processor.invoke operation enum of seed
// 001, in its order.
var seedOperations = strings.Fields(`checkout.sessions.create checkout.sessions.retrieve checkout.sessions.expire
	prices.create products.create subscription_items.create subscription_items.update subscription_items.delete
	subscription_items.create_usage_record payment_intents.create payment_intents.retrieve payment_intents.cancel
	refunds.create billing_portal.sessions.create subscriptions.retrieve subscriptions.update invoices.create_preview
	subscriptions.create setup_intents.create customers.create customers.retrieve accounts.create accounts.retrieve
	accounts.update account_links.create login_links.create`)

func TestTableIsTheSeedsEnumAndTheFakeServesIt(t *testing.T) {
	var names []string
	for _, op := range stripe.Operations() {
		names = append(names, op.Name)
		if !fake.Serves(op.Name) {
			t.Errorf("the fake does not serve %s", op.Name)
		}
		if got, _, ok := stripe.MatchPath(op.Method, strings.Replace(op.Path, "{"+op.PathParam+"}", "x_1", 1)); !ok || got.Name != op.Name {
			t.Errorf("%s: its own path maps to %q", op.Name, got.Name)
		}
		if (op.PathParam == "") == strings.Contains(op.Path, "{") {
			t.Errorf("%s: path %s and path param %q disagree", op.Name, op.Path, op.PathParam)
		}
	}
	if !slices.Equal(names, seedOperations) {
		t.Fatalf("table:\n%v\nseed:\n%v", names, seedOperations)
	}
}

func TestMatchPathRefusesOtherPaths(t *testing.T) {
	for _, p := range []struct{ method, path string }{
		{http.MethodGet, "/v1/checkout/sessions"},  // list: not an operation of the seed
		{http.MethodDelete, "/v1/customers/cus_1"}, // not in the table
		{http.MethodGet, "/v1/customers/"},         // empty id
		{http.MethodPost, "/v1/subscription_items//usage_records"},
		{http.MethodGet, "/v1/accounts/acct_1/extra"},
	} {
		if op, _, ok := stripe.MatchPath(p.method, p.path); ok {
			t.Errorf("%s %s matched %s", p.method, p.path, op.Name)
		}
	}
}
