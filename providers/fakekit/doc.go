// Package fakekit is what every provider fake shares, whatever its
// protocol: the record of every request, the faults a test scripts (for the
// next n calls, in order, for calls that match, or always; per operation
// when a fake has several), the playing of the faults every provider shows
// alike (hang until the client gives up, hold at a gate, accept then time
// out, a body cut short or dropped mid-way), gates, deterministic ids, and
// the local server.
//
// A fake keeps only what is its protocol's: its routes and bodies, and how
// it says a fault (its error bodies and status codes, its rate-limit
// headers, its stream framing), through Protocol.
//
// Fakes answer at once unless a fault or the fake itself waits: benchmarks
// and the sandbox use them.
package fakekit
