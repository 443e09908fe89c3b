package outbound

import (
	"net/netip"
	"testing"
)

func TestPolicyAllowed(t *testing.T) {
	loopbackAllowed := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	officeAllowed := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16")}}
	tests := []struct {
		name   string
		policy Policy
		addr   string
		want   bool
	}{
		{"public IPv4", Policy{}, "93.184.216.34", true},
		{"public IPv6", Policy{}, "2606:2800:220:1:248:1893:25c8:1946", true},
		{"loopback", Policy{}, "127.0.0.1", false},
		{"loopback elsewhere in 127/8", Policy{}, "127.1.2.3", false},
		{"IPv6 loopback", Policy{}, "::1", false},
		{"unspecified IPv4", Policy{}, "0.0.0.0", false},
		{"unspecified IPv6", Policy{}, "::", false},
		{"RFC 1918 10/8", Policy{}, "10.0.0.5", false},
		{"RFC 1918 172.16/12", Policy{}, "172.31.255.255", false},
		{"just outside 172.16/12", Policy{}, "172.32.0.1", true},
		{"RFC 1918 192.168/16", Policy{}, "192.168.1.1", false},
		{"CGNAT 100.64/10", Policy{}, "100.100.100.200", false},
		{"just outside CGNAT", Policy{}, "100.128.0.1", true},
		{"link-local", Policy{}, "169.254.1.1", false},
		{"cloud metadata", Policy{}, "169.254.169.254", false},
		{"AWS IPv6 metadata", Policy{}, "fd00:ec2::254", false},
		{"unique local fc00::/7", Policy{}, "fc00::1", false},
		{"IPv6 link-local", Policy{}, "fe80::1", false},
		{"IPv6 link-local with zone", Policy{}, "fe80::1%eth0", false},
		{"multicast IPv4", Policy{}, "224.0.0.1", false},
		{"multicast IPv6", Policy{}, "ff02::1", false},
		{"broadcast", Policy{}, "255.255.255.255", false},
		{"documentation", Policy{}, "192.0.2.10", false},
		{"mapped loopback", Policy{}, "::ffff:127.0.0.1", false},
		{"mapped metadata", Policy{}, "::ffff:169.254.169.254", false},
		{"mapped private", Policy{}, "::ffff:10.0.0.1", false},
		{"mapped public", Policy{}, "::ffff:93.184.216.34", true},
		{"IPv4-compatible loopback", Policy{}, "::127.0.0.1", false},
		{"NAT64 of loopback", Policy{}, "64:ff9b::7f00:1", false},
		{"NAT64 of public", Policy{}, "64:ff9b::5db8:d822", true},
		{"6to4 of private", Policy{}, "2002:0a00:0001::1", false},
		{"6to4 of public", Policy{}, "2002:5db8:d822::1", true},
		{"Teredo", Policy{}, "2001:0:4136:e378:8000:63bf:3fff:fdd2", false},
		{"loopback allow-listed", loopbackAllowed, "127.0.0.1", true},
		{"mapped loopback allow-listed", loopbackAllowed, "::ffff:127.0.0.1", true},
		{"allow-list does not open other networks", loopbackAllowed, "10.0.0.1", false},
		{"operator network allowed", officeAllowed, "10.20.3.4", true},
		{"neighbour of operator network", officeAllowed, "10.21.0.1", false},
		{"metadata stays blocked beside an operator network", officeAllowed, "169.254.169.254", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.policy.Allowed(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Fatalf("Allowed(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

func TestHostAddr(t *testing.T) {
	tests := []struct {
		host    string
		want    string // "" when not an address
		numeric bool
	}{
		{"127.0.0.1", "127.0.0.1", false},
		{"2130706433", "127.0.0.1", false},
		{"0x7f000001", "127.0.0.1", false},
		{"0x7f.1", "127.0.0.1", false},
		{"127.1", "127.0.0.1", false},
		{"0177.0.0.1", "127.0.0.1", false},
		{"0x7F.0.0.1", "127.0.0.1", false},
		{"169.254.43518", "169.254.169.254", false},
		{"0xa9fea9fe", "169.254.169.254", false},
		{"[::1]", "::1", false},
		{"[::ffff:127.0.0.1]", "::ffff:127.0.0.1", false},
		{"127.0.0.1.", "127.0.0.1", false},
		{"example.com", "", false},
		{"localhost", "", false},
		{"cafe.be", "", false},
		{"1.2.3.4.5", "", true},
		{"256.256.256.256", "", true},
		{"4294967296", "", true},
		{"08.1", "", true}, // 8 is not an octal digit
		{"host.0x10", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			addr, isIP, numeric := HostAddr(tt.host)
			got := ""
			if isIP {
				got = addr.String()
			}
			if got != tt.want || numeric != tt.numeric {
				t.Fatalf("HostAddr(%q) = %q numeric=%v, want %q numeric=%v", tt.host, got, numeric, tt.want, tt.numeric)
			}
		})
	}
}

func TestPolicyCheckURL(t *testing.T) {
	loopbackAllowed := Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}
	tests := []struct {
		name   string
		policy Policy
		url    string
		want   Reason
	}{
		{"public https", Policy{}, "https://status.example.com/health", ""},
		{"public http with port", Policy{}, "http://api.example.com:8080/healthz", ""},
		{"a name is decided at dial time", Policy{}, "http://localhost:8090/metrics", ""},
		{"ftp", Policy{}, "ftp://files.example.com/", ReasonInvalidURL},
		{"file", Policy{}, "file:///etc/passwd", ReasonInvalidURL},
		{"gopher", Policy{}, "gopher://127.0.0.1:6379/_INFO", ReasonInvalidURL},
		{"relative", Policy{}, "/health", ReasonInvalidURL},
		{"no host", Policy{}, "http:///health", ReasonInvalidURL},
		{"a port but no host name (dials the machine itself)", Policy{}, "http://:8090/metrics", ReasonInvalidURL},
		{"userinfo", Policy{}, "https://admin:secret@api.example.com/health", ReasonInvalidURL},
		{"user only", Policy{}, "https://admin@api.example.com/health", ReasonInvalidURL},
		{"loopback literal", Policy{}, "http://127.0.0.1:8090/metrics", ReasonBlocked},
		{"decimal loopback", Policy{}, "http://2130706433/", ReasonBlocked},
		{"hex loopback", Policy{}, "http://0x7f.1/", ReasonBlocked},
		{"IPv6 loopback", Policy{}, "http://[::1]:5432/", ReasonBlocked},
		{"mapped loopback", Policy{}, "http://[::ffff:127.0.0.1]/", ReasonBlocked},
		{"metadata", Policy{}, "http://169.254.169.254/latest/meta-data/", ReasonBlocked},
		{"numeric non-address", Policy{}, "http://1.2.3.4.5/", ReasonInvalidURL},
		{"allow-listed loopback", loopbackAllowed, "http://127.0.0.1:9999/health", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := tt.policy.CheckURL(tt.url); got != tt.want {
				t.Fatalf("CheckURL(%q) = %q, want %q", tt.url, got, tt.want)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	nets, err := ParseNetworks(" 10.0.0.0/8, 127.0.0.1 ,fd00::/8,192.168.1.7/24")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "127.0.0.1/32", "fd00::/8", "192.168.1.0/24"}
	if len(nets) != len(want) {
		t.Fatalf("ParseNetworks = %v, want %v", nets, want)
	}
	for i, n := range nets {
		if n.String() != want[i] {
			t.Fatalf("ParseNetworks[%d] = %v, want %v", i, n, want[i])
		}
	}
	if _, err := ParseNetworks("10.0.0.0/33,nonsense"); err == nil {
		t.Fatal("ParseNetworks accepted invalid networks")
	}
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		{"defaults", Config{}, false},
		{"allow-list", Config{AllowNetworks: nets}, false},
		{"allow everything", Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("0.0.0.0/0")}}, true},
		{"allow every IPv6", Config{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("::/0")}}, true},
		{"negative timeout", Config{Timeout: -1}, true},
		{"too many redirects", Config{MaxRedirects: 50}, true},
		{"negative body bound", Config{MaxBodyBytes: -1}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.WithDefaults().Validate(); (err != nil) != tt.wantErr {
				t.Fatalf("Validate() = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}
