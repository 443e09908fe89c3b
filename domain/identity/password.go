package identity

import (
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/platform/backend/domain/errs"
)

// PasswordParams are argon2id's cost parameters. They are stored with every
// hash (PHC string format), so raising them later leaves old hashes readable.
type PasswordParams struct {
	MemoryKiB   uint32
	Iterations  uint32
	Parallelism uint8
	KeyLength   uint32
}

// DefaultPasswordParams: OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane).
var DefaultPasswordParams = PasswordParams{MemoryKiB: 19 * 1024, Iterations: 2, Parallelism: 1, KeyLength: 32}

// Password length bounds (bytes are bounded too, so hashing cost is bounded).
const (
	MinPasswordLength = 10
	MaxPasswordBytes  = 256
)

// CheckPassword applies the password policy.
func CheckPassword(pw string) error {
	if utf8.RuneCountInString(pw) < MinPasswordLength || len(pw) > MaxPasswordBytes {
		return errs.InvalidField("/password", fmt.Sprintf("must be %d characters to %d bytes", MinPasswordLength, MaxPasswordBytes))
	}
	return nil
}

// HashPassword derives an argon2id hash with the given salt (16 random bytes
// from the caller) and encodes it as $argon2id$v=19$m=..,t=..,p=..$salt$hash.
func HashPassword(pw string, salt []byte, p PasswordParams) string {
	key := argon2.IDKey([]byte(pw), salt, p.Iterations, p.MemoryKiB, p.Parallelism, p.KeyLength)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.MemoryKiB, p.Iterations, p.Parallelism,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// VerifyPassword recomputes the hash with the parameters stored in encoded
// and compares in constant time. A malformed hash never matches.
func VerifyPassword(pw, encoded string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" || len(pw) > MaxPasswordBytes {
		return false
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	var p PasswordParams
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Iterations, &p.Parallelism); err != nil {
		return false
	}
	// Refuse absurd stored costs rather than let a bad row exhaust memory.
	if p.MemoryKiB == 0 || p.MemoryKiB > 1<<20 || p.Iterations == 0 || p.Iterations > 16 || p.Parallelism == 0 {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 || len(want) > 128 {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, p.Iterations, p.MemoryKiB, p.Parallelism, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}
