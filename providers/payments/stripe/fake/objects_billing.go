package fake

// Products, prices, customers, subscriptions and their items, usage
// records, the billing portal and invoice previews.

func (s *Server) createProduct(c *call) (map[string]any, *apiError) {
	if err := c.need("name"); err != nil {
		return nil, err
	}
	active, err := c.boolean("active", true)
	if err != nil {
		return nil, err
	}
	id := c.str("id") // Stripe lets the caller choose a product's id
	if id == "" {
		id = s.newID("prod")
	} else if _, taken := c.scope.objects[id]; taken {
		return nil, &apiError{status: 400, typ: invalidRequest, code: "resource_already_exists", param: "id",
			message: "Product already exists."}
	}
	obj := map[string]any{"id": id, "object": "product", "name": c.str("name"), "active": active,
		"description": c.orNil("description"), "default_price": nil, "metadata": c.metadata(nil),
		"created": c.now, "updated": c.now, "livemode": false}
	c.scope.put(obj)
	return obj, nil
}

func (s *Server) createPrice(c *call) (map[string]any, *apiError) {
	if err := c.need("currency", "unit_amount"); err != nil {
		return nil, err
	}
	amount, err := c.integer("unit_amount", 0)
	if err != nil {
		return nil, err
	}
	product := c.str("product")
	switch pd := c.object("product_data"); {
	case product != "":
		if _, ok := s.find(c.scope, product, "product"); !ok {
			return nil, noSuch("product", product, "product")
		}
	case pd != nil && toString(pd["name"]) != "":
		product = s.newID("prod")
		c.scope.put(map[string]any{"id": product, "object": "product", "name": pd["name"], "active": true,
			"description": nil, "default_price": nil, "metadata": map[string]any{}, "created": c.now, "updated": c.now, "livemode": false})
	default:
		return nil, missing("product")
	}
	var recurring any
	typ := "one_time"
	if r := c.object("recurring"); r != nil {
		if toString(r["interval"]) == "" {
			return nil, missing("recurring[interval]")
		}
		count, err := integerIn(r, "interval_count", "recurring[interval_count]", 1)
		if err != nil {
			return nil, err
		}
		usage := toString(r["usage_type"])
		if usage == "" {
			usage = "licensed"
		}
		recurring, typ = map[string]any{"interval": r["interval"], "interval_count": count, "usage_type": usage,
			"aggregate_usage": nil, "meter": nil, "trial_period_days": nil}, "recurring"
	}
	obj := map[string]any{"id": s.newID("price"), "object": "price", "active": true, "currency": c.str("currency"),
		"unit_amount": amount, "unit_amount_decimal": c.str("unit_amount"), "product": product, "recurring": recurring,
		"type": typ, "billing_scheme": "per_unit", "lookup_key": c.orNil("lookup_key"), "nickname": c.orNil("nickname"),
		"metadata": c.metadata(nil), "created": c.now, "livemode": false}
	c.scope.put(obj)
	return obj, nil
}

func (s *Server) createCustomer(c *call) (map[string]any, *apiError) {
	obj := map[string]any{"id": s.newID("cus"), "object": "customer", "email": c.orNil("email"), "name": c.orNil("name"),
		"description": c.orNil("description"), "phone": c.orNil("phone"), "balance": 0, "currency": nil,
		"delinquent": false, "metadata": c.metadata(nil), "created": c.now, "livemode": false}
	c.scope.put(obj)
	return obj, nil
}

// customer checks an optional customer param names a customer.
func (s *Server) customer(c *call, param string) *apiError {
	if id := c.str(param); id != "" {
		if _, ok := s.find(c.scope, id, "customer"); !ok {
			return noSuch("customer", id, param)
		}
	}
	return nil
}

const month = 30 * 24 * 60 * 60

func (s *Server) createSubscription(c *call) (map[string]any, *apiError) {
	if err := c.need("customer", "items"); err != nil {
		return nil, err
	}
	if err := s.customer(c, "customer"); err != nil {
		return nil, err
	}
	items := c.list("items")
	if len(items) == 0 {
		return nil, missing("items")
	}
	id := s.newID("sub")
	// Check every item before creating any: a refused call leaves nothing.
	var made []map[string]any
	for i, it := range items {
		m, _ := it.(map[string]any)
		si, err := s.newSubscriptionItem(c, id, m, "items["+itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		made = append(made, si)
	}
	cancelAtEnd, err := c.boolean("cancel_at_period_end", false)
	if err != nil {
		return nil, err
	}
	for _, si := range made {
		c.scope.put(si)
	}
	obj := map[string]any{"id": id, "object": "subscription", "customer": c.str("customer"), "status": "active",
		"cancel_at_period_end": cancelAtEnd, "collection_method": "charge_automatically",
		"current_period_start": c.now, "current_period_end": c.now + month, "start_date": c.now,
		"default_payment_method": c.orNil("default_payment_method"), "latest_invoice": nil,
		"metadata": c.metadata(nil), "created": c.now, "livemode": false}
	c.scope.put(obj)
	return s.subscriptionView(c.scope, obj), nil
}

// newSubscriptionItem builds (does not store) an item of subscription sub
// from {price, quantity, metadata}; param names the item in errors.
func (s *Server) newSubscriptionItem(c *call, sub string, m map[string]any, param string) (map[string]any, *apiError) {
	priceID := toString(m["price"])
	if priceID == "" {
		return nil, missing(member(param, "price"))
	}
	price, ok := s.find(c.scope, priceID, "price")
	if !ok {
		return nil, noSuch("price", priceID, member(param, "price"))
	}
	qty, err := integerIn(m, "quantity", member(param, "quantity"), 1)
	if err != nil {
		return nil, err
	}
	meta, _ := m["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	return map[string]any{"id": s.newID("si"), "object": "subscription_item", "subscription": sub, "price": price,
		"quantity": qty, "metadata": meta, "created": c.now}, nil
}

// itemsOf lists a subscription's items in creation order.
func itemsOf(sc *scope, sub string) []map[string]any {
	var items []map[string]any
	for _, id := range sc.order {
		if si, ok := sc.objects[id]; ok && si["object"] == "subscription_item" && si["subscription"] == sub {
			items = append(items, si)
		}
	}
	return items
}

// subscriptionView renders a subscription with its current items.
func (s *Server) subscriptionView(sc *scope, sub map[string]any) map[string]any {
	out := copyObject(sub)
	data := []any{}
	for _, si := range itemsOf(sc, toString(sub["id"])) {
		data = append(data, si)
	}
	out["items"] = map[string]any{"object": "list", "data": data, "has_more": false, "total_count": len(data),
		"url": "/v1/subscription_items?subscription=" + toString(sub["id"])}
	return out
}

func (s *Server) retrieveSubscription(c *call) (map[string]any, *apiError) {
	sub, ok := s.find(c.scope, c.id, "subscription")
	if !ok {
		return nil, noSuch("subscription", c.id, "subscription_exposed_id")
	}
	return s.subscriptionView(c.scope, sub), nil
}

func (s *Server) updateSubscription(c *call) (map[string]any, *apiError) {
	sub, ok := s.find(c.scope, c.id, "subscription")
	if !ok {
		return nil, noSuch("subscription", c.id, "subscription_exposed_id")
	}
	if sub["status"] == "canceled" {
		return nil, unexpectedState("", "A canceled subscription can only update its cancellation_details and metadata.")
	}
	cancelAtEnd, err := c.boolean("cancel_at_period_end", sub["cancel_at_period_end"] == true)
	if err != nil {
		return nil, err
	}
	// items: {id, quantity, price, deleted} changes an item; without id, adds one.
	type change struct {
		si     map[string]any
		delete bool
	}
	var changes []change
	for i, it := range c.list("items") {
		m, _ := it.(map[string]any)
		param := "items[" + itoa(i) + "]"
		id := toString(m["id"])
		if id == "" {
			si, err := s.newSubscriptionItem(c, c.id, m, param)
			if err != nil {
				return nil, err
			}
			changes = append(changes, change{si: si})
			continue
		}
		old, ok := s.find(c.scope, id, "subscription_item")
		if !ok || old["subscription"] != c.id {
			return nil, noSuch("subscription_item", id, param+"[id]")
		}
		si := copyObject(old)
		if toString(m["deleted"]) == "true" {
			changes = append(changes, change{si: si, delete: true})
			continue
		}
		if err := s.applyItemChange(c, si, m, param); err != nil {
			return nil, err
		}
		changes = append(changes, change{si: si})
	}
	for _, ch := range changes {
		if ch.delete {
			c.scope.remove(toString(ch.si["id"]))
		} else {
			c.scope.put(ch.si)
		}
	}
	sub["cancel_at_period_end"] = cancelAtEnd
	sub["metadata"] = c.metadata(mapOf(sub["metadata"]))
	c.copyStrings(sub, "default_payment_method", "description", "collection_method")
	return s.subscriptionView(c.scope, sub), nil
}

// applyItemChange sets price, quantity and metadata on si from m.
func (s *Server) applyItemChange(c *call, si, m map[string]any, param string) *apiError {
	if p := toString(m["price"]); p != "" {
		price, ok := s.find(c.scope, p, "price")
		if !ok {
			return noSuch("price", p, member(param, "price"))
		}
		si["price"] = price
	}
	if _, ok := m["quantity"]; ok {
		q, err := integerIn(m, "quantity", member(param, "quantity"), 0)
		if err != nil {
			return err
		}
		si["quantity"] = q
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		merged := mapOf(si["metadata"])
		for k, v := range meta {
			if v == "" {
				delete(merged, k)
			} else {
				merged[k] = v
			}
		}
		si["metadata"] = merged
	}
	return nil
}

func (s *Server) createSubscriptionItem(c *call) (map[string]any, *apiError) {
	if err := c.need("subscription", "price"); err != nil {
		return nil, err
	}
	sub := c.str("subscription")
	if _, ok := s.find(c.scope, sub, "subscription"); !ok {
		return nil, noSuch("subscription", sub, "subscription")
	}
	si, err := s.newSubscriptionItem(c, sub, c.params, "")
	if err != nil {
		return nil, err
	}
	si["metadata"] = c.metadata(nil)
	c.scope.put(si)
	return si, nil
}

func (s *Server) updateSubscriptionItem(c *call) (map[string]any, *apiError) {
	old, ok := s.find(c.scope, c.id, "subscription_item")
	if !ok {
		return nil, noSuch("subscription_item", c.id, "item")
	}
	si := copyObject(old)
	if err := s.applyItemChange(c, si, c.params, ""); err != nil {
		return nil, err
	}
	c.scope.put(si)
	return si, nil
}

func (s *Server) deleteSubscriptionItem(c *call) (map[string]any, *apiError) {
	if _, ok := s.find(c.scope, c.id, "subscription_item"); !ok {
		return nil, noSuch("subscription_item", c.id, "item")
	}
	c.scope.remove(c.id)
	return map[string]any{"id": c.id, "object": "subscription_item", "deleted": true}, nil
}

func (s *Server) createUsageRecord(c *call) (map[string]any, *apiError) {
	if _, ok := s.find(c.scope, c.id, "subscription_item"); !ok {
		return nil, noSuch("subscription_item", c.id, "subscription_item")
	}
	if err := c.need("quantity"); err != nil {
		return nil, err
	}
	qty, err := c.integer("quantity", 0)
	if err != nil {
		return nil, err
	}
	at := c.now
	if c.str("timestamp") != "now" {
		if at, err = c.integer("timestamp", c.now); err != nil {
			return nil, err
		}
	}
	switch c.str("action") {
	case "", "increment", "set":
	default:
		return nil, invalid("action", "Invalid action: must be one of increment or set")
	}
	obj := map[string]any{"id": s.newID("mbur"), "object": "usage_record", "livemode": false, "quantity": qty,
		"subscription_item": c.id, "timestamp": at}
	c.scope.put(obj)
	return obj, nil
}

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
