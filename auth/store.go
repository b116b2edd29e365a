package auth

import (
	"context"
	"log/slog"
	"time"

	"golang.org/x/oauth2"
)

// StoreKey names a stored token: the authorization server that issued it and the
// resource it is for.
type StoreKey struct {
	Issuer   string `json:"issuer"`
	Resource string `json:"resource"`
}

// StoredToken is a token kept between runs, with the client that obtained it
// (needed to refresh it) and the scopes asked for. Its String, GoString and
// LogValue methods never show the token or the client secret.
type StoredToken struct {
	Token  *oauth2.Token `json:"token"`
	Client ClientInfo    `json:"client"`
	Scopes []string      `json:"scopes,omitempty"`
}

// String describes the entry without secrets.
func (s *StoredToken) String() string {
	if s == nil || s.Token == nil {
		return "no token"
	}
	exp := "no expiry"
	if !s.Token.Expiry.IsZero() {
		exp = "expires " + s.Token.Expiry.Format(time.RFC3339)
	}
	return "token (" + s.Token.Type() + ", " + exp + ") for " + s.Client.String()
}

// GoString is String, so that %#v does not print secrets either.
func (s *StoredToken) GoString() string { return s.String() }

// LogValue keeps tokens out of logs.
func (s *StoredToken) LogValue() slog.Value { return slog.StringValue(s.String()) }

// A TokenStore keeps tokens between runs (see package auth/tokenstore for a
// memory and a file store). Load returns (nil, nil) when it holds no token for
// the key. Implementations must be safe for concurrent use.
type TokenStore interface {
	Load(ctx context.Context, key StoreKey) (*StoredToken, error)
	Save(ctx context.Context, key StoreKey, tok *StoredToken) error
	Delete(ctx context.Context, key StoreKey) error
}
