package stripe_test

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/platform/backend/providers/outcome"
	"github.com/platform/backend/providers/payments/stripe"
	"github.com/platform/backend/providers/payments/stripe/fake"
)

// fixtures are objects the operations below act on.
type fixtures struct {
	customer, product, price, metered, subscription, item, itemToDelete string
	paid, open, session, account                                        string
}

func setUp(t *testing.T, c *stripe.Client) fixtures {
	var fx fixtures
	fx.customer = idOf(object(t, c, "customers.create", map[string]any{"email": "owner@example.com"}))
	fx.product = idOf(object(t, c, "products.create", map[string]any{"name": "Platform"}))
	fx.price = idOf(object(t, c, "prices.create", map[string]any{"currency": "eur", "unit_amount": 1500,
		"product": fx.product, "recurring": map[string]any{"interval": "month"}}))
	fx.metered = idOf(object(t, c, "prices.create", map[string]any{"currency": "eur", "unit_amount": 5,
		"product": fx.product, "recurring": map[string]any{"interval": "month", "usage_type": "metered"}}))
	sub := object(t, c, "subscriptions.create", map[string]any{"customer": fx.customer,
		"items": []any{map[string]any{"price": fx.price, "quantity": 2}}})
	fx.subscription = idOf(sub)
	fx.item = idOf(sub["items"].(map[string]any)["data"].([]any)[0].(map[string]any))
	fx.itemToDelete = idOf(object(t, c, "subscription_items.create", map[string]any{"subscription": fx.subscription, "price": fx.metered}))
	fx.paid = idOf(object(t, c, "payment_intents.create", map[string]any{"amount": 2000, "currency": "eur",
		"payment_method": "pm_card_visa", "confirm": true}))
	fx.open = idOf(object(t, c, "payment_intents.create", map[string]any{"amount": 500, "currency": "eur"}))
	fx.session = idOf(object(t, c, "checkout.sessions.create", map[string]any{"mode": "payment",
		"line_items": []any{map[string]any{"price": fx.price, "quantity": 1}}}))
	fx.account = idOf(object(t, c, "accounts.create", map[string]any{"type": "express"}))
	return fx
}

func TestEveryOperationOverTheWire(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	fx := setUp(t, c)

	tests := []struct {
		op     string
		params map[string]any
		method string
		path   string
		form   string // the body of a POST, the query of a GET or DELETE
		want   map[string]any
	}{
		{"checkout.sessions.create", map[string]any{"mode": "payment", "success_url": "https://shop.example/ok?o=42",
			"line_items": []any{map[string]any{"price": fx.price, "quantity": 2}}, "metadata": map[string]any{"order": "42"}},
			"POST", "/v1/checkout/sessions",
			"line_items[0][price]=" + fx.price + "&line_items[0][quantity]=2&metadata[order]=42&mode=payment&success_url=https%3A%2F%2Fshop.example%2Fok%3Fo%3D42",
			map[string]any{"object": "checkout.session", "status": "open", "amount_total": 3000.0}},
		{"checkout.sessions.retrieve", map[string]any{"id": fx.session, "expand": []any{"line_items"}},
			"GET", "/v1/checkout/sessions/" + fx.session, "expand[0]=line_items",
			map[string]any{"id": fx.session, "object": "checkout.session"}},
		{"checkout.sessions.expire", map[string]any{"id": fx.session},
			"POST", "/v1/checkout/sessions/" + fx.session + "/expire", "",
			map[string]any{"id": fx.session, "status": "expired"}},
		{"prices.create", map[string]any{"currency": "eur", "unit_amount": 900, "product_data": map[string]any{"name": "Seats"}},
			"POST", "/v1/prices", "currency=eur&product_data[name]=Seats&unit_amount=900",
			map[string]any{"object": "price", "unit_amount": 900.0, "type": "one_time"}},
		{"products.create", map[string]any{"name": "Pro plan", "active": true},
			"POST", "/v1/products", "active=true&name=Pro+plan",
			map[string]any{"object": "product", "name": "Pro plan", "active": true}},
		{"subscription_items.create", map[string]any{"subscription": fx.subscription, "price": fx.metered, "quantity": 3},
			"POST", "/v1/subscription_items", "price=" + fx.metered + "&quantity=3&subscription=" + fx.subscription,
			map[string]any{"object": "subscription_item", "quantity": 3.0, "subscription": fx.subscription}},
		{"subscription_items.update", map[string]any{"id": fx.item, "quantity": 5, "metadata": map[string]any{"tier": "gold"}},
			"POST", "/v1/subscription_items/" + fx.item, "metadata[tier]=gold&quantity=5",
			map[string]any{"id": fx.item, "quantity": 5.0, "metadata": map[string]any{"tier": "gold"}}},
		{"subscription_items.delete", map[string]any{"id": fx.itemToDelete, "proration_behavior": "none"},
			"DELETE", "/v1/subscription_items/" + fx.itemToDelete, "proration_behavior=none",
			map[string]any{"id": fx.itemToDelete, "deleted": true}},
		{"subscription_items.create_usage_record", map[string]any{"subscription_item": fx.item, "quantity": 100, "timestamp": 1740000000, "action": "increment"},
			"POST", "/v1/subscription_items/" + fx.item + "/usage_records", "action=increment&quantity=100&timestamp=1740000000",
			map[string]any{"object": "usage_record", "quantity": 100.0, "subscription_item": fx.item, "timestamp": 1740000000.0}},
		{"payment_intents.create", map[string]any{"amount": 2000, "currency": "eur",
			"automatic_payment_methods": map[string]any{"enabled": true}, "metadata": map[string]any{"order": "42"}},
			"POST", "/v1/payment_intents", "amount=2000&automatic_payment_methods[enabled]=true&currency=eur&metadata[order]=42",
			map[string]any{"object": "payment_intent", "status": "requires_payment_method", "amount": 2000.0}},
		{"payment_intents.retrieve", map[string]any{"id": fx.paid},
			"GET", "/v1/payment_intents/" + fx.paid, "",
			map[string]any{"id": fx.paid, "status": "succeeded"}},
		{"payment_intents.cancel", map[string]any{"id": fx.open, "cancellation_reason": "requested_by_customer"},
			"POST", "/v1/payment_intents/" + fx.open + "/cancel", "cancellation_reason=requested_by_customer",
			map[string]any{"id": fx.open, "status": "canceled", "cancellation_reason": "requested_by_customer"}},
		{"refunds.create", map[string]any{"payment_intent": fx.paid, "amount": 500, "reason": "requested_by_customer"},
			"POST", "/v1/refunds", "amount=500&payment_intent=" + fx.paid + "&reason=requested_by_customer",
			map[string]any{"object": "refund", "amount": 500.0, "status": "succeeded"}},
		{"billing_portal.sessions.create", map[string]any{"customer": fx.customer, "return_url": "https://app.example/billing"},
			"POST", "/v1/billing_portal/sessions", "customer=" + fx.customer + "&return_url=https%3A%2F%2Fapp.example%2Fbilling",
			map[string]any{"object": "billing_portal.session", "customer": fx.customer}},
		{"subscriptions.retrieve", map[string]any{"id": fx.subscription},
			"GET", "/v1/subscriptions/" + fx.subscription, "",
			map[string]any{"id": fx.subscription, "status": "active"}},
		{"subscriptions.update", map[string]any{"id": fx.subscription, "cancel_at_period_end": true},
			"POST", "/v1/subscriptions/" + fx.subscription, "cancel_at_period_end=true",
			map[string]any{"id": fx.subscription, "cancel_at_period_end": true}},
		{"invoices.create_preview", map[string]any{"customer": fx.customer, "subscription": fx.subscription},
			"POST", "/v1/invoices/create_preview", "customer=" + fx.customer + "&subscription=" + fx.subscription,
			map[string]any{"object": "invoice", "customer": fx.customer}},
		{"subscriptions.create", map[string]any{"customer": fx.customer, "items": []any{map[string]any{"price": fx.price, "quantity": 1}}},
			"POST", "/v1/subscriptions", "customer=" + fx.customer + "&items[0][price]=" + fx.price + "&items[0][quantity]=1",
			map[string]any{"object": "subscription", "status": "active"}},
		{"setup_intents.create", map[string]any{"customer": fx.customer, "usage": "off_session", "payment_method_types": []any{"card"}},
			"POST", "/v1/setup_intents", "customer=" + fx.customer + "&payment_method_types[0]=card&usage=off_session",
			map[string]any{"object": "setup_intent", "status": "requires_payment_method"}},
		{"customers.create", map[string]any{"email": "ada@example.com", "name": "Ada Lovelace"},
			"POST", "/v1/customers", "email=ada%40example.com&name=Ada+Lovelace",
			map[string]any{"object": "customer", "email": "ada@example.com"}},
		{"customers.retrieve", map[string]any{"id": fx.customer},
			"GET", "/v1/customers/" + fx.customer, "",
			map[string]any{"id": fx.customer, "object": "customer"}},
		{"accounts.create", map[string]any{"type": "express", "country": "FR",
			"capabilities": map[string]any{"card_payments": map[string]any{"requested": true}, "transfers": map[string]any{"requested": true}}},
			"POST", "/v1/accounts", "capabilities[card_payments][requested]=true&capabilities[transfers][requested]=true&country=FR&type=express",
			map[string]any{"object": "account", "type": "express", "country": "FR"}},
		{"accounts.retrieve", map[string]any{"id": fx.account},
			"GET", "/v1/accounts/" + fx.account, "",
			map[string]any{"id": fx.account, "object": "account"}},
		{"accounts.update", map[string]any{"id": fx.account, "business_profile": map[string]any{"url": "https://shop.example"}},
			"POST", "/v1/accounts/" + fx.account, "business_profile[url]=https%3A%2F%2Fshop.example",
			map[string]any{"id": fx.account, "business_profile": map[string]any{"url": "https://shop.example"}}},
		{"account_links.create", map[string]any{"account": fx.account, "type": "account_onboarding",
			"refresh_url": "https://app.example/reauth", "return_url": "https://app.example/done"},
			"POST", "/v1/account_links", "account=" + fx.account + "&refresh_url=https%3A%2F%2Fapp.example%2Freauth&return_url=https%3A%2F%2Fapp.example%2Fdone&type=account_onboarding",
			map[string]any{"object": "account_link"}},
		{"login_links.create", map[string]any{"account": fx.account},
			"POST", "/v1/accounts/" + fx.account + "/login_links", "",
			map[string]any{"object": "login_link"}},
	}

	covered := map[string]bool{}
	for _, tc := range tests {
		covered[tc.op] = true
		t.Run(tc.op, func(t *testing.T) {
			resp, err := c.Invoke(context.Background(), stripe.Request{Operation: tc.op, Params: tc.params, IdempotencyKey: "k-" + tc.op})
			if err != nil {
				t.Fatal(err)
			}
			if resp.Status != 200 || !strings.HasPrefix(resp.RequestID, "req_") || resp.IdempotentReplayed {
				t.Fatalf("status %d, request id %q, replayed %v", resp.Status, resp.RequestID, resp.IdempotentReplayed)
			}
			got := decode(t, resp.Body)
			for k, want := range tc.want {
				if !reflect.DeepEqual(got[k], want) {
					t.Errorf("answer %s = %#v, want %#v", k, got[k], want)
				}
			}

			req := lastRequest(t, f)
			form := req.RawQuery
			if tc.method == http.MethodPost {
				form = string(req.Body)
				if req.ContentType != "application/x-www-form-urlencoded" {
					t.Errorf("content type %q", req.ContentType)
				}
				if req.RawQuery != "" {
					t.Errorf("a POST sent a query %q", req.RawQuery)
				}
				if req.IdempotencyKey != "k-"+tc.op {
					t.Errorf("idempotency key %q", req.IdempotencyKey)
				}
			} else {
				if len(req.Body) != 0 || req.ContentType != "" {
					t.Errorf("a %s sent a body %q (%s)", tc.method, req.Body, req.ContentType)
				}
				if req.IdempotencyKey != "" {
					t.Errorf("a %s sent Idempotency-Key %q", tc.method, req.IdempotencyKey)
				}
			}
			if req.Method != tc.method || req.Path != tc.path || form != tc.form {
				t.Fatalf("sent %s %s %q\nwant %s %s %q", req.Method, req.Path, form, tc.method, tc.path, tc.form)
			}
			if req.Operation != tc.op || req.StripeVersion != stripe.DefaultAPIVersion || req.APIKey != fake.DefaultAPIKey {
				t.Errorf("fake saw operation %q, version %q, key %q", req.Operation, req.StripeVersion, req.APIKey)
			}
		})
	}
	for _, op := range stripe.Operations() {
		if !covered[op.Name] {
			t.Errorf("operation %s has no row", op.Name)
		}
	}
}

func TestObjectsCarryStripesIDPrefixes(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	fx := setUp(t, c)
	preview := object(t, c, "invoices.create_preview", map[string]any{"subscription": fx.subscription})
	usage := object(t, c, "subscription_items.create_usage_record", map[string]any{"subscription_item": fx.item, "quantity": 1})
	portal := object(t, c, "billing_portal.sessions.create", map[string]any{"customer": fx.customer})
	setup := object(t, c, "setup_intents.create", nil)
	refund := object(t, c, "refunds.create", map[string]any{"payment_intent": fx.paid})
	for id, prefix := range map[string]string{
		fx.customer: "cus_", fx.product: "prod_", fx.price: "price_", fx.subscription: "sub_", fx.item: "si_",
		fx.paid: "pi_", fx.session: "cs_test_", fx.account: "acct_", idOf(preview): "upcoming_in_",
		idOf(usage): "mbur_", idOf(portal): "bps_", idOf(setup): "seti_", idOf(refund): "re_",
	} {
		if !strings.HasPrefix(id, prefix) {
			t.Errorf("%q lacks prefix %s", id, prefix)
		}
	}
	if preview["amount_due"] != 3005.0 {
		t.Errorf("preview of 2 x 1500 + 1 x 5: amount_due %v", preview["amount_due"])
	}
}

// A params object sent through the adapter comes back out of the fake's
// decoder as the same nesting, every leaf as its wire string.
func TestFormRoundTripsThroughTheFake(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	params := map[string]any{"mode": "payment", "allow_promotion_codes": false, "customer_email": "zoë@例え.jp",
		"line_items": []any{
			map[string]any{"price_data": map[string]any{"currency": "eur", "unit_amount": 1250,
				"product_data": map[string]any{"name": "Café & croissant", "metadata": map[string]any{"sku": "c-1"}}}, "quantity": 2},
			map[string]any{"price_data": map[string]any{"currency": "eur", "unit_amount_decimal": 99.5, "product_data": map[string]any{"name": "Tip"}}, "quantity": 1},
		},
		"payment_method_types": []any{"card", "sepa_debit"},
		"metadata":             map[string]any{"note": "a=b&c", "empty": nil},
	}
	if _, err := c.Invoke(context.Background(), stripe.Request{Operation: "checkout.sessions.create", Params: params}); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"mode": "payment", "allow_promotion_codes": "false", "customer_email": "zoë@例え.jp",
		"line_items": []any{
			map[string]any{"price_data": map[string]any{"currency": "eur", "unit_amount": "1250",
				"product_data": map[string]any{"name": "Café & croissant", "metadata": map[string]any{"sku": "c-1"}}}, "quantity": "2"},
			map[string]any{"price_data": map[string]any{"currency": "eur", "unit_amount_decimal": "99.5", "product_data": map[string]any{"name": "Tip"}}, "quantity": "1"},
		},
		"payment_method_types": []any{"card", "sepa_debit"},
		"metadata":             map[string]any{"note": "a=b&c", "empty": ""},
	}
	if got := lastRequest(t, f).Params; !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded %#v\nwant    %#v", got, want)
	}
}

func TestConnectedAccountGoesInTheStripeAccountHeader(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	acct := idOf(object(t, c, "accounts.create", map[string]any{"type": "standard"}))

	cus := object(t, c, "customers.create", map[string]any{"email": "buyer@example.com", "stripe_account": acct})
	req := lastRequest(t, f)
	if req.StripeAccount != acct {
		t.Fatalf("Stripe-Account %q, want %s", req.StripeAccount, acct)
	}
	if _, sent := req.Params["stripe_account"]; sent || string(req.Body) != "email=buyer%40example.com" {
		t.Fatalf("stripe_account left in the body: %q", req.Body)
	}
	// The customer lives in the connected account, not on the platform.
	if _, err := c.Invoke(context.Background(), stripe.Request{Operation: "customers.retrieve", Params: map[string]any{"id": idOf(cus)}}); outcome.Of(err) != outcome.Rejected {
		t.Fatalf("found on the platform: %v", err)
	}
	got := object(t, c, "customers.retrieve", map[string]any{"id": idOf(cus), "stripe_account": acct})
	if idOf(got) != idOf(cus) || lastRequest(t, f).StripeAccount != acct || lastRequest(t, f).RawQuery != "" {
		t.Fatalf("retrieve in the account: %v", got)
	}
	// Without a stripe_account, no header at all.
	object(t, c, "customers.create", map[string]any{"email": "p@example.com"})
	if h := lastRequest(t, f).StripeAccount; h != "" {
		t.Fatalf("Stripe-Account %q on a platform call", h)
	}
}

func TestRefusedBeforeAnyNetworkCall(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	tests := []struct {
		name string
		req  stripe.Request
	}{
		{"unknown operation", stripe.Request{Operation: "charges.create", Params: map[string]any{"amount": 1}}},
		{"empty operation", stripe.Request{}},
		{"missing path id", stripe.Request{Operation: "customers.retrieve"}},
		{"path id not a string", stripe.Request{Operation: "customers.retrieve", Params: map[string]any{"id": 7}}},
		{"path traversal", stripe.Request{Operation: "customers.retrieve", Params: map[string]any{"id": "../accounts"}}},
		{"path id with a query", stripe.Request{Operation: "payment_intents.cancel", Params: map[string]any{"id": "pi_1?x=1"}}},
		{"login link names its account as account", stripe.Request{Operation: "login_links.create", Params: map[string]any{"id": "acct_1"}}},
		{"usage record names its item as subscription_item", stripe.Request{Operation: "subscription_items.create_usage_record", Params: map[string]any{"id": "si_1"}}},
		{"stripe_account on account management", stripe.Request{Operation: "accounts.retrieve", Params: map[string]any{"id": "acct_1", "stripe_account": "acct_2"}}},
		{"stripe_account not an account", stripe.Request{Operation: "customers.create", Params: map[string]any{"stripe_account": "cus_1"}}},
		{"stripe_account with a line break", stripe.Request{Operation: "customers.create", Params: map[string]any{"stripe_account": "acct_1\r\nX: y"}}},
		{"unencodable params", stripe.Request{Operation: "customers.create", Params: map[string]any{"metadata": map[string]any{"a[b]": "x"}}}},
		{"idempotency key with a line break", stripe.Request{Operation: "customers.create", IdempotencyKey: "k\r\nX-Evil: 1"}},
		{"idempotency key too long", stripe.Request{Operation: "customers.create", IdempotencyKey: strings.Repeat("k", 256)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Invoke(context.Background(), tc.req)
			if e := stripeError(t, err); e.Kind != outcome.Invalid || e.Status != 0 {
				t.Fatalf("%+v", e)
			}
		})
	}
	if n := len(f.Requests()); n != 0 {
		t.Fatalf("%d requests reached the fake", n)
	}
}

func TestInvokeDoesNotChangeTheCallersParams(t *testing.T) {
	f := startFake(t, fake.Config{})
	c := clientFor(t, f)
	acct := idOf(object(t, c, "accounts.create", map[string]any{"type": "express"}))
	params := map[string]any{"id": acct, "email": "x@example.com"}
	object(t, c, "accounts.update", params)
	if len(params) != 2 || params["id"] != acct {
		t.Fatalf("params changed: %v", params)
	}
}
