// Package stripe is the payments adapter the usage gateway calls for the
// seed's payments.processor.invoke action: an operation name and a params
// object go to Stripe's REST API (form encoded, Bearer secret key, pinned
// Stripe-Version), and Stripe's JSON object comes back unchanged with its
// Request-Id. Failures are one *Error whose Kind says whose fault it was.
// It also verifies and reads Stripe's webhooks (Stripe-Signature).
//
// How a caller names things in params:
//
//   - The path id. Operations on an existing object take its id as
//     params.id (checkout.sessions.retrieve, payment_intents.cancel,
//     subscription_items.delete, accounts.update, ...). Operations that
//     create a child under a parent name the parent the way Stripe's API
//     reference does: params.subscription_item for
//     subscription_items.create_usage_record and params.account for
//     login_links.create. The member is taken out of params (it is not sent
//     in the body) and must look like a Stripe id (letters, digits, "_",
//     "-"). Create operations without a path id leave params.id alone
//     (products.create accepts a custom id).
//   - The connected account. params.stripe_account ("acct_...") is taken
//     out of params and sent as the Stripe-Account header: the call then
//     acts inside that connected account (direct charges, its customers,
//     prices, sessions). It is optional on every operation except the
//     Connect management ones (accounts.*, account_links.create,
//     login_links.create), which act on a connected account from the
//     platform and name it by params.id, params.account or the account
//     member; there it is refused.
//
// Encoding follows Stripe's official libraries: nested objects as bracketed
// keys (metadata[order]=1), arrays indexed (expand[0]=customer,
// line_items[0][price]=price_1), booleans true/false, numbers in plain
// decimal, keys sorted at each level so the same params always give the
// same bytes (Stripe compares a retried idempotent request's parameters).
// A JSON null sends an empty value, which is how Stripe unsets a member
// (metadata[key]= removes that key); an empty array also sends an empty
// value (it clears the list); an empty object sends nothing.
//
// One Invoke is one attempt: the adapter never retries. The gateway owns the
// policy and meters each attempt; Error.Retryable, RetryAfter and
// MaybeApplied tell it what a retry would mean.
package stripe
