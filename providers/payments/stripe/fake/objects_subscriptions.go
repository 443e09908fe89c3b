package fake

// Subscriptions, their items and usage records.

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
