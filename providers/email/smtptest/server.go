// Package smtptest is a tiny SMTP server for tests: it speaks enough of RFC
// 5321 (EHLO/HELO, AUTH PLAIN, MAIL, RCPT, DATA with dot-unstuffing, RSET,
// NOOP, QUIT) for net/smtp clients, records every message it accepts, and
// answers a command with a scripted reply when a test asks (ReplyNext).
package smtptest

import (
	"bufio"
	"encoding/base64"
	"net"
	"strings"
	"sync"
	"testing"
)

// Hang, as a scripted reply, never answers: the client waits until its own
// deadline or context ends.
const Hang = "hang"

// Message is one accepted message.
type Message struct {
	From string
	To   []string
	Data string // headers and body, CRLF line ends, unstuffed
}

// Server listens on 127.0.0.1 until the test ends.
type Server struct {
	Addr string

	ln     net.Listener
	mu     sync.Mutex
	msgs   []Message
	script map[string][]string // verb -> replies for its next uses
	user   string              // AUTH PLAIN credentials, when required
	pass   string
	wg     sync.WaitGroup
	done   chan struct{}
}

// Start runs a server for the test.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, script: map[string][]string{}, done: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { close(s.done); _ = ln.Close(); s.wg.Wait() })
	return s
}

// RequireAuth makes the server offer AUTH PLAIN and accept mail only after
// these credentials (net/smtp sends them without TLS to 127.0.0.1).
func (s *Server) RequireAuth(user, pass string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user, s.pass = user, pass
}

// ReplyNext answers the next use of verb ("MAIL", "RCPT", "DATA" for the
// end of the data, "AUTH", "EHLO") with reply ("550 5.1.1 no such user"),
// or with silence when reply is Hang. Calls queue up in order.
func (s *Server) ReplyNext(verb, reply string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script[verb] = append(s.script[verb], reply)
}

// scripted pops the reply queued for verb, if any.
func (s *Server) scripted(verb string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.script[verb]
	if len(q) == 0 {
		return "", false
	}
	s.script[verb] = q[1:]
	return q[0], true
}

func (s *Server) credentials() (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.user, s.pass
}

// Messages returns what was accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
		}()
	}
}

func (s *Server) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	say := func(line string) bool {
		_, err := c.Write([]byte(line + "\r\n"))
		return err == nil
	}
	if !say("220 smtptest ESMTP ready") {
		return
	}
	// answer says the scripted reply for verb instead of the normal one;
	// false when it did (or hung until the test ended).
	answer := func(verb string) bool {
		reply, ok := s.scripted(verb)
		if !ok {
			return true
		}
		if reply == Hang {
			<-s.done
		} else {
			say(reply)
		}
		return false
	}
	var cur Message
	user, pass := s.credentials()
	authed := user == ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(line)
		command, _, _ := strings.Cut(verb, " ")
		if command == "MAIL" || command == "RCPT" || command == "EHLO" || command == "AUTH" {
			if !answer(command) {
				continue
			}
		}
		switch {
		case strings.HasPrefix(verb, "EHLO"):
			say("250-smtptest greets you")
			say("250-8BITMIME")
			if user != "" {
				say("250-AUTH PLAIN")
			}
			say("250 SIZE 10485760")
		case strings.HasPrefix(verb, "AUTH PLAIN "):
			raw, _ := base64.StdEncoding.DecodeString(line[len("AUTH PLAIN "):])
			parts := strings.Split(string(raw), "\x00")
			if user != "" && len(parts) == 3 && parts[1] == user && parts[2] == pass {
				authed = true
				say("235 2.7.0 authenticated")
			} else {
				say("535 5.7.8 authentication credentials invalid")
			}
		case strings.HasPrefix(verb, "HELO"):
			say("250 smtptest")
		case strings.HasPrefix(verb, "MAIL FROM:"):
			if !authed {
				say("530 5.7.0 authentication required")
				continue
			}
			cur = Message{From: addr(line[len("MAIL FROM:"):])}
			say("250 2.1.0 ok")
		case strings.HasPrefix(verb, "RCPT TO:"):
			if cur.From == "" {
				say("503 5.5.1 MAIL first")
				continue
			}
			cur.To = append(cur.To, addr(line[len("RCPT TO:"):]))
			say("250 2.1.5 ok")
		case verb == "DATA":
			if len(cur.To) == 0 {
				say("503 5.5.1 RCPT first")
				continue
			}
			say("354 end data with <CR><LF>.<CR><LF>")
			var b strings.Builder
			for {
				l, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if l == ".\r\n" || l == ".\n" {
					break
				}
				if strings.HasPrefix(l, "..") {
					l = l[1:]
				}
				b.WriteString(l)
			}
			if !answer("DATA") {
				cur = Message{}
				continue
			}
			cur.Data = b.String()
			s.mu.Lock()
			s.msgs = append(s.msgs, cur)
			s.mu.Unlock()
			cur = Message{}
			say("250 2.0.0 queued")
		case verb == "RSET":
			cur = Message{}
			say("250 ok")
		case verb == "NOOP":
			say("250 ok")
		case verb == "QUIT":
			say("221 bye")
			return
		default:
			say("502 5.5.2 command not implemented")
		}
	}
}

func addr(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i] // drop ESMTP parameters such as BODY=8BITMIME
	}
	return strings.Trim(s, "<>")
}
