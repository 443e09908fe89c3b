package prices

// Operations of the gateway's edge: what email, instant-message and payment
// providers bill a call for. Each is priced per unit: messages for email
// (one per recipient: to, cc and bcc) and instant messages, calls for
// payments operations.
const (
	OpEmail    = "email"    // per recipient
	OpMessage  = "message"  // per message
	OpPayments = "payments" // per API call
)
