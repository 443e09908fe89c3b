// Package delivery is what every email and instant-message adapter shares
// with the usage gateway: the outcome of one provider attempt (a Receipt, or
// an *Error whose Kind says whose fault it was), the normalized webhook
// Event, the webhook verification errors, and the one HTTP exchange the
// adapters make (Endpoint).
//
// The gateway decides provider health and gateway.delivery.failed from the
// Kind alone; it never reads upstream text, which is why Error carries a few
// words of ours and never the provider's body.
package delivery
