package identity

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
)

// The confirmation interstitial of a magic link is protected against login
// CSRF (another site making a browser confirm the attacker's own link, so
// the victim works signed in as the attacker) by a double-submit token: the
// page sets a random value in a SameSite=Strict cookie and in the form; a
// cross-site post carries neither the cookie nor knowledge of the value.
const magicLinkCSRFCookie = "platform_ml_csrf"

func newMagicLinkCSRF(w http.ResponseWriter, r *http.Request) string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	v := base64.RawURLEncoding.EncodeToString(b)
	http.SetCookie(w, &http.Cookie{Name: magicLinkCSRFCookie, Value: v, Path: "/magic-link", HttpOnly: true,
		Secure: secureRequest(r), SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	return v
}

// validMagicLinkCSRF checks a form post's token against its cookie.
func validMagicLinkCSRF(r *http.Request) bool {
	ck, err := r.Cookie(magicLinkCSRFCookie)
	form := r.PostForm.Get("csrf")
	return err == nil && ck.Value != "" && form != "" && subtle.ConstantTimeCompare([]byte(ck.Value), []byte(form)) == 1
}
