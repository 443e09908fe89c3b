package identity_test

import (
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/platform/backend/domain/errs"
	"github.com/platform/backend/domain/event"
	"github.com/platform/backend/domain/identity"
)

// rfcKey is the SHA-1 seed of RFC 6238 appendix B (and RFC 4226 appendix D).
var rfcKey = []byte("12345678901234567890")

// TestTOTPVectors: RFC 6238 appendix B, SHA-1 rows (8 digits, 30 s steps).
func TestTOTPVectors(t *testing.T) {
	for _, tc := range []struct {
		unix int64
		want string
	}{
		{59, "94287082"},
		{1111111109, "07081804"},
		{1111111111, "14050471"},
		{1234567890, "89005924"},
		{2000000000, "69279037"},
		{20000000000, "65353130"},
	} {
		step := identity.TOTPStep(time.Unix(tc.unix, 0))
		if got := identity.HOTP(rfcKey, uint64(step), 8); got != tc.want {
			t.Errorf("T=%d: %s, want %s", tc.unix, got, tc.want)
		}
		// The 6-digit code the platform uses is the same value mod 10^6.
		if got := identity.TOTPCode(rfcKey, step); got != tc.want[2:] {
			t.Errorf("T=%d 6 digits: %s, want %s", tc.unix, got, tc.want[2:])
		}
	}
}

// TestHOTPVectors: RFC 4226 appendix D.
func TestHOTPVectors(t *testing.T) {
	want := []string{"755224", "287082", "359152", "969429", "338314", "254676", "287922", "162583", "399871", "520489"}
	for counter, w := range want {
		if got := identity.HOTP(rfcKey, uint64(counter), 6); got != w {
			t.Errorf("counter %d: %s, want %s", counter, got, w)
		}
	}
}

func TestMatchTOTPSkewAndReplay(t *testing.T) {
	now := time.Unix(1111111111, 0)
	step := identity.TOTPStep(now)
	for _, tc := range []struct {
		name     string
		step     int64
		usedStep int64
		ok       bool
	}{
		{"current step", step, 0, true},
		{"one step behind", step - 1, 0, true},
		{"one step ahead", step + 1, 0, true},
		{"two steps behind", step - 2, 0, false},
		{"two steps ahead", step + 2, 0, false},
		{"the spent step", step, step, false},
		{"before the spent step", step - 1, step, false},
		{"after the spent step", step + 1, step, true},
	} {
		got, ok := identity.MatchTOTP(rfcKey, identity.TOTPCode(rfcKey, tc.step), now, tc.usedStep)
		if ok != tc.ok || (ok && got != tc.step) {
			t.Errorf("%s: step %d ok %v, want ok %v", tc.name, got, ok, tc.ok)
		}
	}
	if _, ok := identity.MatchTOTP(rfcKey, "000000", now, 0); ok && identity.TOTPCode(rfcKey, step) != "000000" {
		t.Error("a wrong code matched")
	}
}

func TestTOTPSecretAndURI(t *testing.T) {
	s, err := identity.NewTOTPSecret(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := identity.DecodeTOTPSecret(strings.ToLower(s))
	if err != nil || len(raw) != identity.TOTPSecretBytes || len(s) != 32 {
		t.Fatalf("secret %q: %d bytes, %v", s, len(raw), err)
	}
	uri := identity.TOTPURI("Platform", "ada@example.test", s)
	for _, part := range []string{"otpauth://totp/Platform:ada@example.test?", "secret=" + s, "issuer=Platform", "algorithm=SHA1", "digits=6", "period=30"} {
		if !strings.Contains(uri, part) {
			t.Errorf("uri %s lacks %s", uri, part)
		}
	}
	codes, err := identity.NewBackupCodes(rand.Reader)
	if err != nil || len(codes) != identity.BackupCodeCount || len(codes[0]) != 19 || identity.IsTOTPCode(identity.NormalizeMFACode(codes[0])) {
		t.Fatalf("backup codes %v %v", codes, err)
	}
}

// mfaUser is a user with MFA enabled on rfcKey at now's step (confirmed),
// backup hashes b0..b9.
func mfaUser(t *testing.T, now time.Time) []event.Recorded {
	t.Helper()
	u, _ := identity.LoadUser(nil)
	created, err := u.Create(identity.NewUser{ID: "u", Email: "a@example.com", EmailHash: "h"}, t0)
	h := apply(t, nil, created, err)
	u, _ = identity.LoadUser(h)
	if _, err := u.StartMFAEnrollment("clear secret", now); err == nil {
		t.Fatal("an unsealed secret must be refused")
	}
	enrolled, err := u.StartMFAEnrollment(identity.SealedPrefix+"x", now)
	h = apply(t, h, enrolled, err)
	u, _ = identity.LoadUser(h)
	if !u.MFA().Pending() || u.MFA().Enabled() {
		t.Fatal("enrollment is pending until confirmed")
	}
	hashes := make([]string, identity.BackupCodeCount)
	for i := range hashes {
		hashes[i] = "b" + string(rune('0'+i))
	}
	if _, err := u.ConfirmMFA(rfcKey, "123", hashes, now); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("malformed code: %v", err)
	}
	wrong := "000000"
	if identity.TOTPCode(rfcKey, identity.TOTPStep(now)) == wrong {
		wrong = "111111"
	}
	if _, err := u.ConfirmMFA(rfcKey, wrong, hashes, now); errs.KindOf(err) != errs.KindInvalidInput {
		t.Fatalf("wrong confirmation code: %v", err)
	}
	confirmed, err := u.ConfirmMFA(rfcKey, identity.TOTPCode(rfcKey, identity.TOTPStep(now)), hashes, now)
	return apply(t, h, confirmed, err)
}

func TestUserMFALifecycle(t *testing.T) {
	now := time.Unix(1111111111, 0)
	step := identity.TOTPStep(now)
	h := mfaUser(t, now)
	u, _ := identity.LoadUser(h)
	if !u.MFA().Enabled() || u.MFA().Pending() || u.MFA().BackupCodesLeft() != 10 || u.MFA().LastStep() != step {
		t.Fatalf("after confirmation: enabled %v pending %v backup %d step %d", u.MFA().Enabled(), u.MFA().Pending(),
			u.MFA().BackupCodesLeft(), u.MFA().LastStep())
	}
	if _, err := u.StartMFAEnrollment(identity.SealedPrefix+"y", now); errs.KindOf(err) != errs.KindConflict {
		t.Fatalf("enrolling over an enabled factor: %v", err)
	}

	t.Run("the confirming step is spent", func(t *testing.T) {
		if _, err := u.UseMFACode(rfcKey, identity.TOTPCode(rfcKey, step), "", now); !errors.Is(err, identity.ErrMFACodeInvalid) {
			t.Fatalf("replayed step: %v", err)
		}
	})
	next := identity.TOTPCode(rfcKey, step+1)
	used, err := u.UseMFACode(rfcKey, next, "", now)
	h2 := apply(t, h, used, err)
	u2, _ := identity.LoadUser(h2)
	t.Run("a used step is refused the second time", func(t *testing.T) {
		if u2.MFA().LastStep() != step+1 {
			t.Fatalf("last step %d", u2.MFA().LastStep())
		}
		if _, err := u2.UseMFACode(rfcKey, next, "", now); !errors.Is(err, identity.ErrMFACodeInvalid) {
			t.Fatalf("replay: %v", err)
		}
	})
	t.Run("a backup code works once", func(t *testing.T) {
		used, err := u2.UseMFACode(rfcKey, "not-a-totp", "b3", now)
		h3 := apply(t, h2, used, err)
		u3, _ := identity.LoadUser(h3)
		if u3.MFA().BackupCodesLeft() != 9 {
			t.Fatalf("backup codes left %d", u3.MFA().BackupCodesLeft())
		}
		if _, err := u3.UseMFACode(rfcKey, "not-a-totp", "b3", now); !errors.Is(err, identity.ErrMFACodeInvalid) {
			t.Fatalf("backup code twice: %v", err)
		}
	})
	t.Run("consecutive wrong codes lock the checks", func(t *testing.T) {
		hl := h2
		for range identity.MFAMaxRejections {
			ul, _ := identity.LoadUser(hl)
			if _, err := ul.UseMFACode(rfcKey, "999999x", "nope", now); !errors.Is(err, identity.ErrMFACodeInvalid) {
				t.Fatalf("wrong code: %v", err)
			}
			hl = apply(t, hl, ul.RejectMFACode(now), nil)
		}
		ul, _ := identity.LoadUser(hl)
		_, err := ul.UseMFACode(rfcKey, "", "b4", now)
		if e, ok := errs.As(err); !ok || e.Code != "mfa_locked" || e.RetryAfterSeconds <= 0 {
			t.Fatalf("locked: %v", err)
		}
		if _, err := ul.UseMFACode(rfcKey, "", "b4", now.Add(identity.MFALockout+time.Second)); err != nil {
			t.Fatalf("after the lockout: %v", err)
		}
	})
	t.Run("disable needs a code; reset does not", func(t *testing.T) {
		if _, err := u2.DisableMFA(rfcKey, "", "wrong", now); !errors.Is(err, identity.ErrMFACodeInvalid) {
			t.Fatalf("disable without a valid code: %v", err)
		}
		off, err := u2.DisableMFA(rfcKey, "", "b5", now)
		ud, _ := identity.LoadUser(apply(t, h2, off, err))
		if ud.MFA().Enabled() || ud.MFA().BackupCodesLeft() != 0 || ud.MFA().SealedSecret() != "" {
			t.Fatal("disabled MFA keeps nothing")
		}
		// A new secret may be confirmed at once: spent steps belong to the old one.
		again, err := ud.StartMFAEnrollment(identity.SealedPrefix+"z", now)
		hr := apply(t, apply(t, h2, off, nil), again, err)
		ue, _ := identity.LoadUser(hr)
		hashes := make([]string, identity.BackupCodeCount)
		if _, err := ue.ConfirmMFA(rfcKey, identity.TOTPCode(rfcKey, step), hashes, now); err != nil {
			t.Fatalf("confirming a new secret in a spent step: %v", err)
		}
		if _, err := ud.ResetMFA("admin", now); errs.KindOf(err) != errs.KindConflict {
			t.Fatalf("reset without MFA: %v", err)
		}
		reset, err := u2.ResetMFA("admin", now)
		ur, _ := identity.LoadUser(apply(t, h2, reset, err))
		if ur.MFA().Enabled() {
			t.Fatal("reset turns MFA off")
		}
	})
	t.Run("erasure clears the factor", func(t *testing.T) {
		erased, err := u2.DeletePermanently(now)
		ue, _ := identity.LoadUser(apply(t, h2, erased, err))
		if ue.MFA().Enabled() || ue.MFA().SealedSecret() != "" {
			t.Fatal("an erased user keeps no factor")
		}
	})
}

func TestMFAChallenge(t *testing.T) {
	now := time.Unix(1111111111, 0)
	issued, err := identity.IssueMFAChallenge(identity.MFAChallengeIssuedV1{ChallengeID: "c", UserID: "u", SecretHash: "s"}, now)
	h := apply(t, nil, issued, err)
	c, _ := identity.LoadMFAChallenge(h)
	for name, tc := range map[string]struct {
		hash string
		at   time.Time
	}{"wrong secret": {"x", now}, "expired": {"s", now.Add(identity.MFAChallengeTTL)}} {
		if err := c.Check(tc.hash, tc.at); !errors.Is(err, identity.ErrMFATokenInvalid) {
			t.Errorf("%s: %v", name, err)
		}
	}
	consumed, err := c.Consume("s", identity.MFAMethodTOTP, now)
	c, _ = identity.LoadMFAChallenge(apply(t, h, consumed, err))
	if err := c.Check("s", now); !errors.Is(err, identity.ErrMFATokenInvalid) {
		t.Fatalf("a consumed challenge: %v", err)
	}
}
