//go:build !unix

package stdio

import "io"

// pollableInput returns in unchanged: only unix pipes are switched to the poller.
func pollableInput(in io.Reader) io.Reader { return in }
