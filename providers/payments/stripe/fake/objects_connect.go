package fake

// Connected accounts and the links into them. They live in the platform's
// own scope: the platform manages them with its own key.

func (s *Server) createAccount(c *call) (map[string]any, *apiError) {
	typ := c.str("type")
	switch typ {
	case "express", "standard", "custom":
	case "":
		if c.object("controller") == nil {
			return nil, missing("type")
		}
	default:
		return nil, invalid("type", "Invalid type: must be one of custom, express, or standard")
	}
	country := c.str("country")
	if country == "" {
		country = "US"
	}
	// Requested capabilities start inactive until the account is verified.
	capabilities := map[string]any{}
	for name, v := range c.object("capabilities") {
		if req, _ := v.(map[string]any); toString(req["requested"]) == "true" {
			capabilities[name] = "inactive"
		}
	}
	obj := map[string]any{"id": s.newID("acct"), "object": "account", "type": orNil(typ), "country": country,
		"email": c.orNil("email"), "business_type": c.orNil("business_type"), "charges_enabled": false,
		"payouts_enabled": false, "details_submitted": false, "capabilities": capabilities,
		"business_profile": c.object("business_profile"), "metadata": c.metadata(nil), "created": c.now}
	c.platform.put(obj)
	return obj, nil
}

func (s *Server) retrieveAccount(c *call) (map[string]any, *apiError) {
	acct, ok := s.find(c.platform, c.id, "account")
	if !ok {
		return nil, noSuch("account", c.id, "account")
	}
	return acct, nil
}

func (s *Server) updateAccount(c *call) (map[string]any, *apiError) {
	acct, ok := s.find(c.platform, c.id, "account")
	if !ok {
		return nil, noSuch("account", c.id, "account")
	}
	c.copyStrings(acct, "email", "business_type")
	if bp := c.object("business_profile"); bp != nil {
		merged := mapOf(acct["business_profile"])
		for k, v := range bp {
			merged[k] = v
		}
		acct["business_profile"] = merged
	}
	acct["metadata"] = c.metadata(mapOf(acct["metadata"]))
	return acct, nil
}

func (s *Server) createAccountLink(c *call) (map[string]any, *apiError) {
	if err := c.need("account", "type"); err != nil {
		return nil, err
	}
	acct := c.str("account")
	if _, ok := s.find(c.platform, acct, "account"); !ok {
		return nil, noSuch("account", acct, "account")
	}
	path := "setup/e"
	switch c.str("type") {
	case "account_onboarding":
	case "account_update":
		path = "setup/u"
	default:
		return nil, invalid("type", "Invalid type: must be one of account_onboarding or account_update")
	}
	// Account links have no id on Stripe; the URL carries a one-time token.
	return map[string]any{"object": "account_link", "created": c.now, "expires_at": c.now + 300,
		"url": "https://connect.stripe.com/" + path + "/" + acct + "/" + s.newID("acctlink")}, nil
}

func (s *Server) createLoginLink(c *call) (map[string]any, *apiError) {
	acct, ok := s.find(c.platform, c.id, "account")
	if !ok {
		return nil, noSuch("account", c.id, "account")
	}
	if acct["type"] != "express" {
		return nil, &apiError{status: 400, typ: invalidRequest,
			message: "Cannot create a login link for an account that is not an Express account."}
	}
	return map[string]any{"object": "login_link", "created": c.now,
		"url": "https://connect.stripe.com/express/" + s.newID("link")}, nil
}
