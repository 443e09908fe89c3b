// Package socialfake is what the six social network fakes
// (providers/social/<network>/fake) share beyond fakekit (faults scripted
// per operation, records, ids, the local server): every accepted post
// stored and counted, bearer token checks, the OAuth 2.0 authorize and
// token endpoints with PKCE, and the problems a network answers with. Each
// fake speaks its own network's paths, headers and bodies on top of it and
// renders problems in its network's error shape (a Dialect).
//
// Faults are scripted per operation: f.On(OpPost).Next(n, fault) for the
// next n posts, Then for the next calls in order, When(fakekit.Containing(s),
// fault) for every call whose body or query holds s, Always; f.Next and
// the rest without On for any call.
package socialfake
