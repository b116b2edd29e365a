package auth

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"

	"golang.org/x/oauth2"
)

// Transient reports whether err, from an authorization, may pass if tried
// again: the network failed (no connection, a reset, a timeout, a body cut
// short), or the authorization server or a metadata document answered a server
// error (5xx) or 429 Too Many Requests. A refusal (an OAuth error such as
// invalid_client or access_denied, a 4xx) or a server that breaks a rule is
// not transient. A cancelled or expired context is not either: the caller
// gave up.
//
// An error that joins several (errors.Join) is transient when one of them is:
// a metadata document that one well-known URL could not serve and the others
// did not have.
func Transient(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	return transient(err)
}

// transient looks for a transient failure in err's tree.
func transient(err error) bool {
	switch e := err.(type) {
	case *oauth2.RetrieveError:
		return e.Response != nil && transientStatus(e.Response.StatusCode)
	case *errStatus:
		return transientStatus(e.status)
	case *url.Error:
		// What an http.Client returns: the failure it wraps decides (an
		// auth.Transport's error, say), unless the request timed out, or the
		// connection ended before an answer.
		return e.Timeout() || e.Err == io.EOF || transient(e.Err)
	case net.Error:
		return true
	}
	if err == io.ErrUnexpectedEOF {
		return true
	}
	switch e := err.(type) {
	case interface{ Unwrap() error }:
		if inner := e.Unwrap(); inner != nil {
			return transient(inner)
		}
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			if inner != nil && transient(inner) {
				return true
			}
		}
	}
	return false
}

// transientStatus reports whether an HTTP status may pass: 5xx and 429.
func transientStatus(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests
}
