package fakeprovider

import (
	"strings"
	"sync"
)

// Script decides each call's fault: first the queue (Next, Then), then a
// fault set for one of the call's recipients (ForRecipient), then the
// standing fault (Always, Succeed unless set). Safe for concurrent use.
type Script struct {
	mu          sync.Mutex
	queue       []Fault
	byRecipient map[string]Fault
	always      Fault
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

// ForRecipient makes every call naming this recipient (any of to, cc,
// bcc; compared without case) answer with f: a sandbox can offer
// addresses that always bounce.
func (s *Script) ForRecipient(recipient string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.byRecipient == nil {
		s.byRecipient = map[string]Fault{}
	}
	s.byRecipient[strings.ToLower(recipient)] = f
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
	s.queue, s.byRecipient, s.always = nil, nil, Fault{}
}

// Take returns the fault for a call to these recipients, consuming a
// queued one.
func (s *Script) Take(recipients []string) Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) > 0 {
		f := s.queue[0]
		s.queue = s.queue[1:]
		return f
	}
	for _, r := range recipients {
		if f, ok := s.byRecipient[strings.ToLower(strings.TrimSpace(r))]; ok {
			return f
		}
	}
	return s.always
}
