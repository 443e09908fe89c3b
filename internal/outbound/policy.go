package outbound

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/platform/backend/domain/text"
)

// blocked are the networks no tenant URL may reach unless an operator allows
// them: everything that is not the public internet. IPv4-mapped IPv6
// (::ffff:a.b.c.d) is unmapped before the check; NAT64 and 6to4 addresses
// are checked by the IPv4 address they carry.
var blocked = mustPrefixes(
	// IPv4
	"0.0.0.0/8",       // "this network", incl. the unspecified 0.0.0.0 (Linux dials it as loopback)
	"10.0.0.0/8",      // RFC 1918
	"100.64.0.0/10",   // carrier-grade NAT (RFC 6598)
	"127.0.0.0/8",     // loopback
	"169.254.0.0/16",  // link-local, incl. the cloud metadata address 169.254.169.254
	"172.16.0.0/12",   // RFC 1918
	"192.0.0.0/24",    // IETF protocol assignments (incl. 192.0.0.192, a metadata address)
	"192.0.2.0/24",    // documentation
	"192.88.99.0/24",  // 6to4 relay anycast
	"192.168.0.0/16",  // RFC 1918
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // documentation
	"203.0.113.0/24",  // documentation
	"224.0.0.0/4",     // multicast
	"240.0.0.0/4",     // reserved, incl. broadcast 255.255.255.255
	// IPv6
	"::/96",          // unspecified, loopback ::1 and the deprecated IPv4-compatible ::a.b.c.d
	"64:ff9b:1::/48", // local-use NAT64
	"100::/64",       // discard
	"2001::/23",      // IETF protocol assignments, incl. Teredo (which hides an IPv4 address)
	"2001:db8::/32",  // documentation
	"fc00::/7",       // unique local, incl. the AWS metadata address fd00:ec2::254
	"fe80::/10",      // link-local
	"fec0::/10",      // deprecated site-local
	"ff00::/8",       // multicast
)

var (
	nat64  = netip.MustParsePrefix("64:ff9b::/96") // carries an IPv4 address in its last 32 bits
	sixTo4 = netip.MustParsePrefix("2002::/16")    // carries an IPv4 address in bits 16..47
)

func mustPrefixes(s ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(s))
	for i, p := range s {
		out[i] = netip.MustParsePrefix(p)
	}
	return out
}

// Policy decides which addresses may be dialled.
type Policy struct {
	Allow []netip.Prefix // operator networks reachable although internal
}

// Allowed reports whether a is a public address or inside an allowed network.
func (p Policy) Allowed(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.WithZone("")
	if p.allowListed(a) || p.allowListed(a.Unmap()) {
		return true
	}
	return public(a)
}

func (p Policy) allowListed(a netip.Addr) bool {
	for _, n := range p.Allow {
		if n.Contains(a) {
			return true
		}
	}
	return false
}

// public is the fixed rule set: not in a blocked network, and for an address
// that carries an IPv4 address, that address is public too.
func public(a netip.Addr) bool {
	a = a.Unmap()
	for _, n := range blocked {
		if n.Contains(a) {
			return false
		}
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a):
			return public(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		case sixTo4.Contains(a):
			return public(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
		}
	}
	return true
}

// HostAddr reads a URL host as an IP address when it is one, including the
// legacy IPv4 spellings that C resolvers accept (2130706433, 0x7f.1,
// 0177.0.0.1, 127.1): they are decided here, never handed to a resolver
// that would read them differently. numeric is true when the host looks
// like a number but is not a valid address (refused, as browsers do).
func HostAddr(host string) (addr netip.Addr, isIP, numeric bool) {
	h := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), ".")
	if a, err := netip.ParseAddr(h); err == nil {
		return a, true, false
	}
	if a, ok := parseLegacyIPv4(h); ok {
		return a, true, false
	}
	labels := strings.Split(h, ".")
	if _, digits := ipv4PartDigits(labels[len(labels)-1]); digits {
		return netip.Addr{}, false, true // the last label is a number: not a name
	}
	return netip.Addr{}, false, false
}

// parseLegacyIPv4 is inet_aton: one to four parts, each decimal, 0x hex or
// 0-prefixed octal; the last part fills the remaining bytes.
func parseLegacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (24 - 8*uint(i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*uint(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base, digits := ipv4PartDigits(p)
	if !digits {
		return 0, false
	}
	switch base {
	case 16:
		p = p[2:]
	case 8:
		p = p[1:]
	}
	if p == "" {
		return 0, true // "0x" alone is 0 to inet_aton
	}
	v, err := strconv.ParseUint(p, base, 32)
	return v, err == nil
}

// ipv4PartDigits reports whether p is spelled as a number (decimal, 0x hex
// or 0-prefixed octal), whatever its size, and in which base.
func ipv4PartDigits(p string) (base int, ok bool) {
	if p == "" {
		return 0, false
	}
	base, digits := 10, "0123456789"
	switch {
	case len(p) > 1 && (p[:2] == "0x" || p[:2] == "0X"):
		base, digits, p = 16, "0123456789abcdefABCDEF", p[2:]
	case len(p) > 1 && p[0] == '0':
		base, digits, p = 8, "01234567", p[1:]
	}
	for _, r := range p {
		if !strings.ContainsRune(digits, r) {
			return 0, false // also refuses signs and spaces that ParseUint would accept or skip
		}
	}
	return base, true
}

// CheckURL is the static check when a URL is stored (e.g. a component's
// checkUrl): an absolute http or https URL without credentials, whose host
// is a name or an address the policy allows. Names are decided at dial time
// only (DNS answers change); that check is the real guard. The answer is a
// Reason and a sentence for the client.
func (p Policy) CheckURL(raw string) (Reason, string) {
	u, detail := text.ParseURL(raw, text.URLRules{})
	if detail != "" {
		return ReasonInvalidURL, detail
	}
	addr, isIP, numeric := HostAddr(u.Hostname())
	switch {
	case numeric:
		return ReasonInvalidURL, "host is neither a name nor an IP address"
	case isIP && !p.Allowed(addr):
		return ReasonBlocked, "host is an internal address"
	}
	return "", ""
}
