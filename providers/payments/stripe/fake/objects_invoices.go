package fake

// The billing portal and invoice previews.

func (s *Server) createPortalSession(c *call) (map[string]any, *apiError) {
	if err := c.need("customer"); err != nil {
		return nil, err
	}
	if err := s.customer(c, "customer"); err != nil {
		return nil, err
	}
	id := s.newID("bps")
	return map[string]any{"id": id, "object": "billing_portal.session", "customer": c.str("customer"),
		"url": "https://billing.stripe.com/p/session/test_" + id, "return_url": c.orNil("return_url"),
		"configuration": "bpc_fake_default", "locale": c.orNil("locale"), "on_behalf_of": nil, "flow": nil,
		"created": c.now, "livemode": false}, nil
}

// previewInvoice renders the next invoice of a subscription (or of the
// invoice_items given) without storing it, as Stripe does.
func (s *Server) previewInvoice(c *call) (map[string]any, *apiError) {
	if c.str("customer") == "" && c.str("subscription") == "" {
		return nil, missing("customer")
	}
	if err := s.customer(c, "customer"); err != nil {
		return nil, err
	}
	var lines []any
	currency, customer, total := "", c.str("customer"), int64(0)
	add := func(amount int64, cur string, price any, qty int64) {
		if currency == "" {
			currency = cur
		}
		total += amount
		lines = append(lines, map[string]any{"id": "il_tmp_fake" + itoa(len(lines)+1), "object": "line_item",
			"amount": amount, "currency": cur, "price": price, "quantity": qty})
	}
	if subID := c.str("subscription"); subID != "" {
		sub, ok := s.find(c.scope, subID, "subscription")
		if !ok {
			return nil, noSuch("subscription", subID, "subscription")
		}
		customer = toString(sub["customer"])
		for _, si := range itemsOf(c.scope, subID) {
			price := mapOf(si["price"])
			qty, _ := si["quantity"].(int64)
			unit, _ := price["unit_amount"].(int64)
			add(unit*qty, toString(price["currency"]), price, qty)
		}
	}
	for i, it := range c.list("invoice_items") {
		m, _ := it.(map[string]any)
		param := "invoice_items[" + itoa(i) + "]"
		if p := toString(m["price"]); p != "" {
			price, ok := s.find(c.scope, p, "price")
			if !ok {
				return nil, noSuch("price", p, param+"[price]")
			}
			qty, err := integerIn(m, "quantity", param+"[quantity]", 1)
			if err != nil {
				return nil, err
			}
			unit, _ := price["unit_amount"].(int64)
			add(unit*qty, toString(price["currency"]), price, qty)
			continue
		}
		amount, err := integerIn(m, "amount", param+"[amount]", 0)
		if err != nil {
			return nil, err
		}
		if toString(m["currency"]) == "" {
			return nil, missing(param + "[currency]")
		}
		add(amount, toString(m["currency"]), nil, 1)
	}
	if lines == nil {
		lines = []any{}
	}
	return map[string]any{"id": "upcoming_" + s.newID("in"), "object": "invoice", "customer": customer,
		"subscription": c.orNil("subscription"), "status": "draft", "currency": currency, "subtotal": total,
		"total": total, "amount_due": total, "amount_paid": 0, "amount_remaining": total,
		"lines":        map[string]any{"object": "list", "data": lines, "has_more": false, "total_count": len(lines)},
		"period_start": c.now, "period_end": c.now + month, "created": c.now, "livemode": false}, nil
}
