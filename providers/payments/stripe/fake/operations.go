package fake

// handler serves one operation; called with s.mu held.
type handler func(s *Server, c *call) (map[string]any, *apiError)

// handlerFor maps each operation of the adapter's table to what the fake
// does; nil for an operation it does not serve (a test holds the two in
// step).
func handlerFor(operation string) handler {
	switch operation {
	case "checkout.sessions.create":
		return (*Server).createCheckoutSession
	case "checkout.sessions.retrieve":
		return retrieveOf("checkout.session", "session")
	case "checkout.sessions.expire":
		return (*Server).expireCheckoutSession
	case "prices.create":
		return (*Server).createPrice
	case "products.create":
		return (*Server).createProduct
	case "subscription_items.create":
		return (*Server).createSubscriptionItem
	case "subscription_items.update":
		return (*Server).updateSubscriptionItem
	case "subscription_items.delete":
		return (*Server).deleteSubscriptionItem
	case "subscription_items.create_usage_record":
		return (*Server).createUsageRecord
	case "payment_intents.create":
		return (*Server).createPaymentIntent
	case "payment_intents.retrieve":
		return retrieveOf("payment_intent", "intent")
	case "payment_intents.cancel":
		return (*Server).cancelPaymentIntent
	case "refunds.create":
		return (*Server).createRefund
	case "billing_portal.sessions.create":
		return (*Server).createPortalSession
	case "subscriptions.retrieve":
		return (*Server).retrieveSubscription
	case "subscriptions.update":
		return (*Server).updateSubscription
	case "invoices.create_preview":
		return (*Server).previewInvoice
	case "subscriptions.create":
		return (*Server).createSubscription
	case "setup_intents.create":
		return (*Server).createSetupIntent
	case "customers.create":
		return (*Server).createCustomer
	case "customers.retrieve":
		return retrieveOf("customer", "customer")
	case "accounts.create":
		return (*Server).createAccount
	case "accounts.retrieve":
		return (*Server).retrieveAccount
	case "accounts.update":
		return (*Server).updateAccount
	case "account_links.create":
		return (*Server).createAccountLink
	case "login_links.create":
		return (*Server).createLoginLink
	}
	return nil
}

// Serves reports whether the fake serves an operation.
func Serves(operation string) bool { return handlerFor(operation) != nil }

// execute serves the call's operation. Caller holds s.mu.
func (s *Server) execute(c *call) (map[string]any, *apiError) {
	h := handlerFor(c.op.Name)
	if h == nil {
		return nil, &apiError{status: 500, typ: "api_error", message: "fake: operation not served"}
	}
	return h(s, c)
}

// retrieveOf answers GET of one object by its path id.
func retrieveOf(object, param string) handler {
	return func(s *Server, c *call) (map[string]any, *apiError) {
		obj, ok := s.find(c.scope, c.id, object)
		if !ok {
			return nil, noSuch(object, c.id, param)
		}
		return obj, nil
	}
}
