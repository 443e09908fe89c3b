package identity

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/platform/backend/commands"
	domain "github.com/platform/backend/domain/identity"
	"github.com/platform/backend/providers/email"
)

// Sign-up that never tells whether an address has an account (see
// domain/identity/onboarding.go). POST /register checks the form and the
// slug, answers 202, and in the background either emails a confirmation
// link (no account for the address) or a notice (an account exists: sign in
// or reset the password). The link carries the sign-up sealed under a key
// derived from the deployment's secret, so nothing is stored before it is
// used; POST /register/confirm opens it and makes the account, the
// organization and a session, exactly as sign-up did before.

// SignupTokenPrefix starts a sign-up confirmation token.
const SignupTokenPrefix = "su_"

// signupWorkTimeout bounds the background work of one sign-up request.
const signupWorkTimeout = 30 * time.Second

// signupSubject binds sealed sign-up claims (GCM additional data): a value
// sealed for anything else does not open as one.
const signupSubject = "signup-token/v1"

// RequestSignup is POST /register: the form and the slug are checked now
// (422, 409 slug_taken: nothing that depends on the address), the rest
// happens in the background, so the answer and its timing are the same for
// every address.
func (a *Access) RequestSignup(ctx context.Context, in Register) error {
	if err := a.h.requireKeys(); err != nil {
		return err
	}
	if err := checkRegister(in); err != nil {
		return err
	}
	if err := a.h.slugFree(ctx, in.OrganizationSlug); err != nil {
		return err
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), signupWorkTimeout)
		defer cancel()
		if err := a.signupWork(ctx, in); err != nil {
			a.log.Warn("sign-up email not sent", "err", err)
		}
	}()
	return nil
}

// signupWork emails the notice to an address that has an account, and the
// confirmation link to one that has none.
func (a *Access) signupWork(ctx context.Context, in Register) error {
	address := domain.NormalizeEmail(in.Email)
	hash, err := a.h.keys.EmailHash(ctx, address)
	if err != nil {
		return err
	}
	holder, err := a.h.userByEmailHash(ctx, hash)
	if err != nil {
		return err
	}
	if holder != "" {
		return a.mail.Send(ctx, email.Message{To: address, Subject: "Someone tried to sign up with your email",
			Text: "Someone (maybe you) tried to sign up with this address, which already has an account.\n\n" +
				"Sign in: " + a.cfg.PublicURL + "/login\n" +
				"Forgot the password? Reset it: " + a.cfg.PublicURL + "/password-reset\n\n" +
				"To make another workspace, sign in and create an organization there.\n" +
				"If it was not you, ignore this message: nothing was changed.\n"})
	}
	token, expires, err := a.SignupToken(ctx, in)
	if err != nil {
		return err
	}
	return a.mail.Send(ctx, email.Message{To: address, Subject: "Confirm your email to finish signing up",
		Text: "Confirm this address to finish signing up (the link works once, until " + expires.UTC().Format(time.RFC1123) + "):\n\n" +
			a.publicLink("/register/confirm", "token", token) + "\n\n" +
			"Or send this token with POST /register/confirm: " + token + "\n\n" +
			"If you did not sign up, ignore this message: nothing is made until the link is used.\n"})
}

// SignupToken seals a checked sign-up into a confirmation token: fresh
// account and organization ids, the address, and the password's argon2id
// hash (never the password itself). The background path emails it; tests
// and tools that hold the request may mint one in-process.
func (a *Access) SignupToken(ctx context.Context, in Register) (string, time.Time, error) {
	if err := checkRegister(in); err != nil {
		return "", time.Time{}, err
	}
	salt := make([]byte, 16)
	if _, err := rand.Read(salt); err != nil {
		return "", time.Time{}, err
	}
	claim := domain.SignupClaim{UserID: uuid.Must(uuid.NewV7()).String(), OrganizationID: uuid.Must(uuid.NewV7()).String(),
		Email: domain.NormalizeEmail(in.Email), Name: in.Name, PasswordHash: domain.HashPassword(in.Password, salt, domain.DefaultPasswordParams),
		OrganizationName: in.OrganizationName, OrganizationSlug: in.OrganizationSlug, DeveloperWorkspace: in.DeveloperWorkspace,
		ExpiresAt: a.now().Add(domain.SignupTTL)}
	raw, err := json.Marshal(claim)
	if err != nil {
		return "", time.Time{}, err
	}
	key, err := a.signupKey(ctx)
	if err != nil {
		return "", time.Time{}, err
	}
	sealed, err := domain.Seal(key, signupSubject, string(raw), rand.Reader)
	if err != nil {
		return "", time.Time{}, err
	}
	return SignupTokenPrefix + strings.TrimPrefix(sealed, domain.SealedPrefix), claim.ExpiresAt, nil
}

// signupKey is derived from the deployment's secret (the email pepper, kept
// in identity_secrets, never in events): HMAC-SHA256 under a fixed label,
// so the two uses never share a key.
func (a *Access) signupKey(ctx context.Context) ([]byte, error) {
	pepper, err := a.h.keys.Pepper(ctx)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, pepper)
	m.Write([]byte(signupSubject))
	return m.Sum(nil), nil
}

// openSignup opens a confirmation token; anything that does not open, or
// has expired, is domain.ErrSignupTokenInvalid.
func (a *Access) openSignup(ctx context.Context, token string) (domain.SignupClaim, error) {
	var claim domain.SignupClaim
	rest, ok := strings.CutPrefix(token, SignupTokenPrefix)
	if !ok || rest == "" {
		return claim, domain.ErrSignupTokenInvalid
	}
	key, err := a.signupKey(ctx)
	if err != nil {
		return claim, err
	}
	raw, err := domain.Open(key, signupSubject, domain.SealedPrefix+rest)
	if err != nil || json.Unmarshal([]byte(raw), &claim) != nil {
		return domain.SignupClaim{}, domain.ErrSignupTokenInvalid
	}
	return claim, claim.Check(a.now())
}

// ConfirmSignup is POST /register/confirm: the emailed token completes the
// sign-up with the ids it carries, so a second use finds its account made
// (409 signup_token_used) and never makes another. The holder of the link
// proved the mailbox, so here an address that gained an account meanwhile
// may be told (409 email_taken).
func (a *Access) ConfirmSignup(ctx context.Context, m commands.Meta, token string) (Registered, error) {
	if err := a.h.requireKeys(); err != nil {
		return Registered{}, err
	}
	c, err := a.openSignup(ctx, token)
	if err != nil {
		return Registered{}, err
	}
	// Used before (or undone after a failed organization): its account's
	// stream exists. Checked first, so that a second use is told so rather
	// than that its own slug is taken.
	if u, err := a.h.loadUser(ctx, c.UserID); err != nil || u.Exists() {
		if err != nil {
			return Registered{}, err
		}
		return Registered{}, domain.ErrSignupTokenUsed
	}
	out, err := a.h.register(ctx, m, Register{Email: c.Email, Name: c.Name, OrganizationName: c.OrganizationName,
		OrganizationSlug: c.OrganizationSlug, DeveloperWorkspace: c.DeveloperWorkspace, CreateOrganization: true},
		c.OrganizationID, c.UserID, c.PasswordHash)
	if code := errCode(err); code == "user_exists" || code == "subject_erased" {
		return Registered{}, domain.ErrSignupTokenUsed
	}
	return out, err
}
