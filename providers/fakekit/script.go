package fakekit

import (
	"strings"
	"sync"
)

// Script decides what calls do: first the queue (Next, Then), then the
// first rule a call matches (When), then the standing fault (Always,
// Succeed unless set). Safe for concurrent use.
type Script struct {
	mu     sync.Mutex
	queue  []Fault
	rules  []rule
	always Fault
}

type rule struct {
	match Match
	fault Fault
}

// Match tells a call a rule is for by one of the call's subjects: the
// request body and query by default, what a fake names otherwise (an email
// fake names the recipients).
type Match func(subject string) bool

// Containing matches a subject holding s: a sandbox or a concurrent test
// marks the calls that fail by a word in them.
func Containing(s string) Match {
	return func(subject string) bool { return strings.Contains(subject, s) }
}

// Naming matches a subject that is s, without case or surrounding space:
// an address that always bounces.
func Naming(s string) Match {
	s = strings.TrimSpace(s)
	return func(subject string) bool { return strings.EqualFold(strings.TrimSpace(subject), s) }
}

// Next makes the next n calls answer with f.
func (s *Script) Next(n int, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.queue = append(s.queue, f)
	}
}

// Then makes the next calls answer with these faults, one per call, in
// order (Fault{} for a success in between).
func (s *Script) Then(faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, faults...)
}

// When makes every call one of whose subjects matches answer with f,
// until Reset.
func (s *Script) When(m Match, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = append(s.rules, rule{match: m, fault: f})
}

// Always sets the standing answer for calls nothing else scripted.
func (s *Script) Always(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always = f
}

// Reset forgets everything scripted.
func (s *Script) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue, s.rules, s.always = nil, nil, Fault{}
}

// queued pops the next queued fault.
func (s *Script) queued() (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return Fault{}, false
	}
	f := s.queue[0]
	s.queue = s.queue[1:]
	return f, true
}

// matched is the fault of the first rule a subject matches.
func (s *Script) matched(subjects []string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rules {
		for _, sub := range subjects {
			if r.match(sub) {
				return r.fault, true
			}
		}
	}
	return Fault{}, false
}

func (s *Script) standing() Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.always
}
