package identity

// End reasons of sessions ended from the sessions list (not by the
// session's own token): by the user from another device, or by an
// organization admin.
const (
	EndRevokedByUser  = "revoked_by_user"
	EndRevokedByAdmin = "revoked_by_admin"
)
