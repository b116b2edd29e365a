package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ModeRedis: stateful tools/call (as ModeHTTPStateful) through nginx balancing
// round robin over Config.Replicas servers whose sessions live in Config.Store
// ("memory": the handler's own map, one replica only; "redis": a redis-server the
// run starts; "redis-strict": the same, each session checked on every request). The server figures (CPU, allocations, RSS) are the first
// replica's; Result.RedisCallsPerCall and Result.SessionKeyBytes are Redis's
// own counts.
const ModeRedis = "redis"

// RedisURLEnv is the environment variable that tells srv-mcpkit to keep its
// sessions and events on Redis; with StrictEnv=1 as well, it checks a session
// in Redis on every request (streamable.HandlerOptions.SessionCheckInterval
// negative) instead of every 2 s.
const (
	RedisURLEnv = "MCPBENCH_REDIS_URL"
	StrictEnv   = "MCPBENCH_SESSION_CHECK_EVERY_REQUEST"
)

// usesRedis reports whether a Config.Store keeps sessions on Redis: "redis",
// or "redis-strict" (checked on every request).
func usesRedis(store string) bool { return store == "redis" || store == "redis-strict" }

// cluster is what a ModeRedis run started besides its first replica.
type cluster struct {
	redisPort int
	redis     *exec.Cmd
	nginx     *exec.Cmd
	others    []*serverProc
	dir       string
}

// startCluster starts redis-server (for the redis store), the replicas and
// nginx in front of them. It returns the first replica (measured) and nginx's
// address.
func startCluster(ctx context.Context, cfg Config, spec serverSpec) (*cluster, *serverProc, string, error) {
	if cfg.Replicas < 1 {
		cfg.Replicas = 1
	}
	if !usesRedis(cfg.Store) && cfg.Replicas > 1 {
		return nil, nil, "", errors.New("sessions in memory cannot be shared: one replica only")
	}
	dir, err := os.MkdirTemp("", "mcpbench-cluster-")
	if err != nil {
		return nil, nil, "", err
	}
	c := &cluster{dir: dir}
	if usesRedis(cfg.Store) {
		if err := c.startRedis(ctx); err != nil {
			c.stop()
			return nil, nil, "", err
		}
		spec.env = append(spec.env, RedisURLEnv+"="+c.redisURL())
		if cfg.Store == "redis-strict" {
			spec.env = append(spec.env, StrictEnv+"=1")
		}
	}
	var first *serverProc
	var addrs []string
	for i := range cfg.Replicas {
		s := spec
		if i > 0 { // only the first replica is pinned and profiled
			s.pinCPU = ""
			s.args = []string{"-transport", "http"}
		}
		p, err := startServer(ctx, s)
		if err != nil {
			c.stop()
			if first != nil {
				_ = first.stop()
			}
			return nil, nil, "", err
		}
		if i == 0 {
			first = p
		} else {
			c.others = append(c.others, p)
		}
		addrs = append(addrs, p.addr)
	}
	addr, err := c.startNginx(ctx, addrs)
	if err != nil {
		c.stop()
		_ = first.stop()
		return nil, nil, "", err
	}
	return c, first, addr, nil
}

// freeAddr returns a loopback port nobody listened on a moment ago.
func freeAddr() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (c *cluster) redisURL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", c.redisPort) }

// startRedis runs a redis-server without persistence and waits until it answers.
func (c *cluster) startRedis(ctx context.Context) error {
	port, err := freeAddr()
	if err != nil {
		return err
	}
	c.redisPort = port
	c.redis = exec.Command("redis-server", "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", c.dir)
	if err := c.redis.Start(); err != nil {
		return fmt.Errorf("redis-server (Debian: apt-get install redis-server): %w", err)
	}
	return waitFor(ctx, func() bool { out, err := c.redisCLI(ctx, "PING"); return err == nil && out == "PONG" })
}

// redisCLI runs one command with redis-cli and returns its output, trimmed.
func (c *cluster) redisCLI(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "redis-cli", append([]string{"-p", strconv.Itoa(c.redisPort)}, args...)...).Output()
	return strings.TrimSpace(string(out)), err
}

// nginxConf balances round robin over the replicas with the proxy settings of
// deploy/nginx/mcpkit-replicas.conf (no stickiness, keep-alive upstreams, no
// buffering).
const nginxConf = `daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	upstream mcpkit {
%[2]s		keepalive 64;
	}
	server {
		listen 127.0.0.1:%[3]d;
		location / {
			proxy_pass http://mcpkit;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $host;    # the client's loopback host, which the servers accept
			proxy_buffering off;
			proxy_read_timeout 60s;
		}
	}
}
`

// startNginx runs nginx in front of addrs and returns its address.
func (c *cluster) startNginx(ctx context.Context, addrs []string) (string, error) {
	port, err := freeAddr()
	if err != nil {
		return "", err
	}
	var servers strings.Builder
	for _, a := range addrs {
		fmt.Fprintf(&servers, "\t\tserver %s;\n", a)
	}
	conf := filepath.Join(c.dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(nginxConf, c.dir, servers.String(), port)), 0o600); err != nil {
		return "", err
	}
	bin, err := exec.LookPath("nginx")
	if err != nil {
		bin = "/usr/sbin/nginx" // Debian's, when /usr/sbin is not on PATH
	}
	c.nginx = exec.Command(bin, "-p", c.dir, "-c", conf, "-e", filepath.Join(c.dir, "error.log"))
	if err := c.nginx.Start(); err != nil {
		return "", fmt.Errorf("nginx (Debian: apt-get install nginx): %w", err)
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitFor(ctx, func() bool {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			conn.Close()
		}
		return err == nil
	}); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "error.log"))
		return "", fmt.Errorf("nginx did not listen: %w\n%s", err, log)
	}
	return addr, nil
}

// waitFor polls ok every 20 ms for at most 10 s.
func waitFor(ctx context.Context, ok func() bool) error {
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			return errors.New("not ready within 10s")
		}
		if !sleepCtx(ctx, 20*time.Millisecond) { // a port to open: nothing to block on
			return ctx.Err()
		}
	}
	return nil
}

// commandCalls returns the calls of each command in INFO commandstats.
func (c *cluster) commandCalls(ctx context.Context) (map[string]int64, error) {
	out, err := c.redisCLI(ctx, "INFO", "commandstats")
	if err != nil {
		return nil, fmt.Errorf("INFO commandstats: %w", err)
	}
	calls := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		// cmdstat_getex:calls=12,usec=...
		name, rest, ok := strings.Cut(sc.Text(), ":calls=")
		if !ok {
			continue
		}
		v, _, _ := strings.Cut(rest, ",")
		k, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("INFO commandstats: %q", sc.Text())
		}
		calls[strings.TrimPrefix(name, "cmdstat_")] = k
	}
	return calls, nil
}

// sessionKeyBytes returns MEMORY USAGE of one session record (the largest of
// the first few found).
func (c *cluster) sessionKeyBytes(ctx context.Context) (int64, error) {
	out, err := c.redisCLI(ctx, "--scan", "--pattern", "mcp:{*}:s")
	if err != nil || out == "" {
		return 0, fmt.Errorf("no session record in Redis (%v)", err)
	}
	var most int64
	for i, key := range strings.Fields(out) {
		if i == 8 {
			break
		}
		v, err := c.redisCLI(ctx, "MEMORY", "USAGE", key)
		if err != nil {
			return 0, fmt.Errorf("MEMORY USAGE %s: %w", key, err)
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("MEMORY USAGE %s: %q", key, v)
		}
		most = max(most, n)
	}
	return most, nil
}

// stop stops nginx, the other replicas and redis-server, and removes the files.
func (c *cluster) stop() {
	for _, p := range c.others {
		_ = p.stop()
	}
	for _, cmd := range []*exec.Cmd{c.nginx, c.redis} {
		if cmd != nil && cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		}
	}
	_ = os.RemoveAll(c.dir)
}

// runCluster measures stateful tools/call through the balancer at target and,
// with Redis, counts its commands over the window and a session's footprint.
func runCluster(ctx context.Context, cfg Config, c *cluster, p *serverProc, target string, res *Result) error {
	var before, after map[string]int64
	if usesRedis(cfg.Store) {
		cfg.windowHook = func(begin bool) error {
			n, err := c.commandCalls(ctx)
			if begin {
				before = n
			} else {
				after = n
			}
			return err
		}
	}
	if err := runHTTP(ctx, cfg, p, target, res); err != nil {
		return err
	}
	if !usesRedis(cfg.Store) {
		return nil
	}
	res.RedisCommands = map[string]int64{}
	var total int64
	for name, n := range after {
		if name == "info" {
			n-- // the INFO that read the first count
		}
		if d := n - before[name]; d > 0 {
			res.RedisCommands[name] = d
			total += d
		}
	}
	if res.Calls > 0 {
		res.RedisCallsPerCall = float64(total) / float64(res.Calls)
	}
	n, err := c.sessionKeyBytes(ctx)
	res.SessionKeyBytes = n
	return err
}
