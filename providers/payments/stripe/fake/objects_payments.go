package fake

import "strings"

// Checkout sessions, payment intents, refunds and setup intents.

const day = 24 * 60 * 60

func (s *Server) createCheckoutSession(c *call) (map[string]any, *apiError) {
	if err := c.need("mode"); err != nil {
		return nil, err
	}
	mode := c.str("mode")
	switch mode {
	case "payment", "subscription", "setup":
	default:
		return nil, invalid("mode", "Invalid mode: must be one of payment, setup, or subscription")
	}
	if err := s.customer(c, "customer"); err != nil {
		return nil, err
	}
	items := c.list("line_items")
	if mode != "setup" && len(items) == 0 {
		return nil, missing("line_items")
	}
	var amount any
	total, currency, known := int64(0), c.str("currency"), true
	for i, it := range items {
		m, _ := it.(map[string]any)
		param := "line_items[" + itoa(i) + "]"
		qty, err := integerIn(m, "quantity", member(param, "quantity"), 1)
		if err != nil {
			return nil, err
		}
		unit, cur := int64(0), ""
		if p := toString(m["price"]); p != "" {
			price, ok := s.find(c.scope, p, "price")
			if !ok {
				return nil, noSuch("price", p, member(param, "price"))
			}
			unit, _ = price["unit_amount"].(int64)
			cur = toString(price["currency"])
		} else if pd, ok := m["price_data"].(map[string]any); ok {
			if unit, err = integerIn(pd, "unit_amount", param+"[price_data][unit_amount]", 0); err != nil {
				return nil, err
			}
			cur = toString(pd["currency"])
			if cur == "" {
				return nil, missing(param + "[price_data][currency]")
			}
		} else {
			known = false
			continue
		}
		total += unit * qty
		if currency == "" {
			currency = cur
		}
	}
	if len(items) > 0 && known {
		amount = total
	}
	id := s.newID("cs_test")
	obj := map[string]any{"id": id, "object": "checkout.session", "mode": mode, "status": "open",
		"payment_status": "unpaid", "url": "https://checkout.stripe.com/c/pay/" + id,
		"success_url": c.orNil("success_url"), "cancel_url": c.orNil("cancel_url"), "customer": c.orNil("customer"),
		"customer_email": c.orNil("customer_email"), "client_reference_id": c.orNil("client_reference_id"),
		"amount_total": amount, "amount_subtotal": amount, "currency": orNil(currency),
		"payment_intent": nil, "subscription": nil, "setup_intent": nil, "ui_mode": "hosted",
		"metadata": c.metadata(nil), "created": c.now, "expires_at": c.now + day, "livemode": false}
	if mode == "setup" {
		obj["payment_status"] = "no_payment_required"
	}
	c.scope.put(obj)
	return obj, nil
}

func (s *Server) expireCheckoutSession(c *call) (map[string]any, *apiError) {
	cs, ok := s.find(c.scope, c.id, "checkout.session")
	if !ok {
		return nil, noSuch("checkout.session", c.id, "session")
	}
	if cs["status"] != "open" {
		return nil, unexpectedState("", `Only Checkout Sessions with a status in ["open"] can be expired.`)
	}
	cs["status"], cs["url"] = "expired", nil
	return cs, nil
}

// declineOf knows Stripe's declining test-mode payment methods; any other
// pm_ id succeeds like pm_card_visa.
func declineOf(pm string) (code string, declined bool) {
	switch pm {
	case "pm_card_chargeDeclined", "pm_card_visa_chargeDeclined":
		return "generic_decline", true
	case "pm_card_chargeDeclinedInsufficientFunds":
		return "insufficient_funds", true
	}
	return "", false
}

func (s *Server) createPaymentIntent(c *call) (map[string]any, *apiError) {
	if err := c.need("amount", "currency"); err != nil {
		return nil, err
	}
	amount, err := c.integer("amount", 0)
	if err != nil {
		return nil, err
	}
	if amount < 1 {
		return nil, invalid("amount", "This value must be greater than or equal to 1.")
	}
	if err := s.customer(c, "customer"); err != nil {
		return nil, err
	}
	confirm, err := c.boolean("confirm", false)
	if err != nil {
		return nil, err
	}
	pm := c.str("payment_method")
	if pm != "" && !strings.HasPrefix(pm, "pm_") {
		return nil, noSuch("PaymentMethod", pm, "payment_method")
	}
	status, received, charge := "requires_payment_method", int64(0), any(nil)
	switch {
	case pm != "" && confirm:
		if code, declined := declineOf(pm); declined {
			return nil, cardDeclined(code)
		}
		status, received, charge = "succeeded", amount, s.newID("ch")
	case pm != "":
		status = "requires_confirmation"
	}
	id := s.newID("pi")
	obj := map[string]any{"id": id, "object": "payment_intent", "amount": amount, "amount_received": received,
		"amount_capturable": 0, "currency": c.str("currency"), "customer": c.orNil("customer"), "status": status,
		"client_secret": id + "_secret_fake", "payment_method": orNil(pm), "latest_charge": charge,
		"capture_method": "automatic", "confirmation_method": "automatic", "description": c.orNil("description"),
		"canceled_at": nil, "cancellation_reason": nil, "last_payment_error": nil, "on_behalf_of": c.orNil("on_behalf_of"),
		"metadata": c.metadata(nil), "created": c.now, "livemode": false}
	c.scope.put(obj)
	return obj, nil
}

func (s *Server) cancelPaymentIntent(c *call) (map[string]any, *apiError) {
	pi, ok := s.find(c.scope, c.id, "payment_intent")
	if !ok {
		return nil, noSuch("payment_intent", c.id, "intent")
	}
	switch pi["status"] {
	case "succeeded", "canceled":
		return nil, unexpectedState("payment_intent_unexpected_state",
			"You cannot cancel this PaymentIntent because it has a status of "+toString(pi["status"])+".")
	}
	reason := c.str("cancellation_reason")
	switch reason {
	case "", "duplicate", "fraudulent", "requested_by_customer", "abandoned":
	default:
		return nil, invalid("cancellation_reason", "Invalid cancellation_reason")
	}
	pi["status"], pi["canceled_at"], pi["cancellation_reason"] = "canceled", c.now, orNil(reason)
	return pi, nil
}

func (s *Server) createRefund(c *call) (map[string]any, *apiError) {
	piID := c.str("payment_intent")
	if piID == "" {
		return nil, missing("payment_intent")
	}
	pi, ok := s.find(c.scope, piID, "payment_intent")
	if !ok {
		return nil, noSuch("payment_intent", piID, "payment_intent")
	}
	if pi["status"] != "succeeded" {
		return nil, unexpectedState("charge_not_refundable", "This PaymentIntent does not have a successful charge to refund.")
	}
	paid, _ := pi["amount_received"].(int64)
	left := paid - c.scope.refunded[piID]
	amount, err := c.integer("amount", left)
	if err != nil {
		return nil, err
	}
	switch {
	case left == 0:
		return nil, unexpectedState("charge_already_refunded", "Charge has already been refunded.")
	case amount < 1 || amount > left:
		return nil, &apiError{status: 400, typ: invalidRequest, code: "amount_too_large", param: "amount",
			message: "Refund amount is greater than unrefunded amount on charge."}
	}
	switch c.str("reason") {
	case "", "duplicate", "fraudulent", "requested_by_customer":
	default:
		return nil, invalid("reason", "Invalid reason")
	}
	c.scope.refunded[piID] += amount
	obj := map[string]any{"id": s.newID("re"), "object": "refund", "amount": amount, "currency": pi["currency"],
		"payment_intent": piID, "charge": pi["latest_charge"], "status": "succeeded", "reason": c.orNil("reason"),
		"metadata": c.metadata(nil), "created": c.now}
	c.scope.put(obj)
	return obj, nil
}

func (s *Server) createSetupIntent(c *call) (map[string]any, *apiError) {
	if err := s.customer(c, "customer"); err != nil {
		return nil, err
	}
	usage := c.str("usage")
	switch usage {
	case "":
		usage = "off_session"
	case "on_session", "off_session":
	default:
		return nil, invalid("usage", "Invalid usage: must be one of on_session or off_session")
	}
	id := s.newID("seti")
	obj := map[string]any{"id": id, "object": "setup_intent", "customer": c.orNil("customer"),
		"status": "requires_payment_method", "usage": usage, "client_secret": id + "_secret_fake",
		"payment_method": nil, "payment_method_types": []any{"card"}, "description": c.orNil("description"),
		"metadata": c.metadata(nil), "created": c.now, "livemode": false}
	c.scope.put(obj)
	return obj, nil
}

// orNil is s, or JSON null when empty.
func orNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}
