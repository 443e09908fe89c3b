package fake

// Products, prices and customers.

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
