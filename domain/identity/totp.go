package identity

import (
	"crypto/hmac"
	"crypto/sha1" //nolint:gosec // RFC 6238's default; every authenticator app implements it
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// TOTP (RFC 6238) over HOTP (RFC 4226) with HMAC-SHA-1. The parameters are
// fixed, so any authenticator app reads the otpauth URI without negotiation.
const (
	TOTPDigits      = 6
	TOTPPeriod      = 30 // seconds per step
	TOTPSkew        = 1  // steps accepted either side of now: clock drift and typing time
	TOTPSecretBytes = 20 // 160 bits, RFC 4226's recommended key length for SHA-1
)

var totpBase32 = base32.StdEncoding.WithPadding(base32.NoPadding)

// HOTP is RFC 4226's code of counter under key, digits long (1..9).
func HOTP(key []byte, counter uint64, digits int) string {
	digits = min(max(digits, 1), 9)
	mac := hmac.New(sha1.New, key)
	var msg [8]byte
	binary.BigEndian.PutUint64(msg[:], counter)
	mac.Write(msg[:])
	sum := mac.Sum(nil)
	off := sum[len(sum)-1] & 0x0f // dynamic truncation
	bin := binary.BigEndian.Uint32(sum[off:off+4]) & 0x7fffffff
	mod := uint32(1)
	for range digits {
		mod *= 10
	}
	return fmt.Sprintf("%0*d", digits, bin%mod)
}

// TOTPStep is the time step holding t.
func TOTPStep(t time.Time) int64 { return t.Unix() / TOTPPeriod }

// TOTPCode is the 6-digit code of a step.
func TOTPCode(key []byte, step int64) string { return HOTP(key, uint64(step), TOTPDigits) }

// MatchTOTP finds the step within the skew of now whose code is code,
// considering only steps after usedStep (replay protection: a step already
// spent, or any before it, never counts again). Every candidate is
// compared, in constant time.
func MatchTOTP(key []byte, code string, now time.Time, usedStep int64) (int64, bool) {
	current, found := TOTPStep(now), int64(0)
	ok := false
	for d := int64(-TOTPSkew); d <= TOTPSkew; d++ {
		s := current + d
		if s <= usedStep {
			continue
		}
		if subtle.ConstantTimeCompare([]byte(TOTPCode(key, s)), []byte(code)) == 1 && !ok {
			found, ok = s, true
		}
	}
	return found, ok
}

// NewTOTPSecret draws a secret and returns it base32 (no padding), the form
// authenticator apps and the otpauth URI take.
func NewTOTPSecret(random io.Reader) (string, error) {
	raw := make([]byte, TOTPSecretBytes)
	if _, err := io.ReadFull(random, raw); err != nil {
		return "", err
	}
	return totpBase32.EncodeToString(raw), nil
}

// DecodeTOTPSecret reads a base32 secret (case and padding forgiven).
func DecodeTOTPSecret(secret string) ([]byte, error) {
	return totpBase32.DecodeString(strings.TrimRight(strings.ToUpper(strings.TrimSpace(secret)), "="))
}

// TOTPURI is the Key URI Format authenticator apps scan:
// otpauth://totp/Issuer:account?secret=...&issuer=Issuer&algorithm=SHA1&digits=6&period=30.
func TOTPURI(issuer, account, secret string) string {
	q := url.Values{"secret": {secret}, "issuer": {issuer}, "algorithm": {"SHA1"},
		"digits": {fmt.Sprint(TOTPDigits)}, "period": {fmt.Sprint(TOTPPeriod)}}
	return "otpauth://totp/" + url.PathEscape(issuer+":"+account) + "?" + q.Encode()
}

// NormalizeMFACode drops what people type around a code (spaces, dashes)
// and case, so "123 456" and "ABCD-efgh-..." compare as codes.
func NormalizeMFACode(code string) string {
	return strings.ToLower(strings.NewReplacer(" ", "", "-", "", "\t", "").Replace(code))
}

// IsTOTPCode: six digits (after NormalizeMFACode). Anything else is tried as
// a backup code.
func IsTOTPCode(code string) bool {
	if len(code) != TOTPDigits {
		return false
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// NewBackupCodes draws BackupCodeCount codes of 80 random bits each,
// written xxxx-xxxx-xxxx-xxxx (lowercase base32). 80 bits keep a fast hash
// of a code (HashSecret) out of reach of guessing.
func NewBackupCodes(random io.Reader) ([]string, error) {
	out := make([]string, BackupCodeCount)
	for i := range out {
		raw := make([]byte, 10)
		if _, err := io.ReadFull(random, raw); err != nil {
			return nil, err
		}
		s := strings.ToLower(totpBase32.EncodeToString(raw)) // 16 characters
		out[i] = s[0:4] + "-" + s[4:8] + "-" + s[8:12] + "-" + s[12:16]
	}
	return out, nil
}
