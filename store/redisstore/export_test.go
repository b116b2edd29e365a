package redisstore

import "context"

// Do runs a raw command on c's connection (tests use it to pause Redis or to
// write what another program would).
func Do(ctx context.Context, c *Client, args ...string) error {
	_, err := c.do(ctx, c.rc.B().Arbitrary(args...).Build())
	return err
}
