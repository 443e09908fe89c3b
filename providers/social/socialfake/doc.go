// Package socialfake is what the six social network fakes
// (providers/social/<network>/fake) share: recording every request, counting
// every accepted post, deterministic ids, the faults a test scripts, bearer
// token checks, and the OAuth 2.0 authorize and token endpoints with PKCE.
// Each fake speaks its own network's paths, headers and bodies on top of it
// and renders problems in its network's error shape (a Dialect).
//
// Faults are scripted per operation (Op): Next(op, n, f) for the next n
// calls, Then(op, f1, f2...) for the next calls in order, When(op,
// substring, f) for every call whose body or query holds the substring, and
// Always(op, f). The fakes answer at once (no latency) unless a fault hangs.
package socialfake
