// Package smtptest is a tiny SMTP server for tests: it speaks enough of RFC
// 5321 (EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT)
// for net/smtp clients, and records every message it accepts.
package smtptest

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
)

// Message is one accepted message.
type Message struct {
	From string
	To   []string
	Data string // headers and body, CRLF line ends, unstuffed
}

// Server listens on 127.0.0.1 until the test ends.
type Server struct {
	Addr string

	ln   net.Listener
	mu   sync.Mutex
	msgs []Message
	wg   sync.WaitGroup
}

// Start runs a server for the test.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() { _ = ln.Close(); s.wg.Wait() })
	return s
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
	var cur Message
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb := strings.ToUpper(line)
		switch {
		case strings.HasPrefix(verb, "EHLO"):
			say("250-smtptest greets you")
			say("250-8BITMIME")
			say("250 SIZE 10485760")
		case strings.HasPrefix(verb, "HELO"):
			say("250 smtptest")
		case strings.HasPrefix(verb, "MAIL FROM:"):
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
