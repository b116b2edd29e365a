package testkit

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// nginxLimit bounds an nginx a test runs: it is killed after this long even if
// the test's cleanup never runs.
const nginxLimit = 10 * time.Minute

// RunNginx runs nginx (the binary at path nginx) in the foreground with
// configuration conf, its files in dir, waits (at most 10 s) until it listens
// on 127.0.0.1:port, and returns its URL. It is stopped by PID when the test
// ends; on failure its error log is logged.
func RunNginx(t testing.TB, nginx, dir, conf string, port int) string {
	t.Helper()
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), nginxLimit)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, nginx, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"))
	KillGroupOnCancel(cmd)
	if out, err := exec.Command(nginx, "-t", "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log")).CombinedOutput(); err != nil {
		t.Fatalf("nginx rejects the test configuration: %v\n%s", err, out)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		KillGroup(cmd.Process.Pid)
		_ = cmd.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			t.Logf("nginx error log:\n%s", log)
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(url, "http://"), time.Second)
		if err == nil {
			c.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("nginx did not start listening on %s: %v", url, err)
		}
		time.Sleep(20 * time.Millisecond) // waiting for a port to open: nothing to block on
	}
}

// FreePort returns a loopback port nobody listened on a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// NginxConf returns the configuration of an nginx run by RunNginx: in the
// foreground, one process, its files (pid, logs, temporary files) in dir, and
// httpBlock as the contents of its http context.
func NginxConf(dir, httpBlock string) string {
	return fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 256; }
http {
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
%[2]s
}
`, dir, httpBlock)
}

// BalancerExample returns the nginx deployment example at path (the
// repository's deploy/nginx/mcpkit-replicas.conf) with its replica lines
// replaced by addrs and its listen address by 127.0.0.1:port; it fails the
// test if the example no longer has the lines it replaces.
func BalancerExample(t testing.TB, path string, addrs []string, port int) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the deployment example: %v", err)
	}
	server := regexp.MustCompile(`(?m)^\tserver 127\.0\.0\.1:\d+ (.*);\n`)
	lines := server.FindAllStringSubmatch(string(data), -1)
	if len(lines) == 0 || !strings.Contains(string(data), "listen 127.0.0.1:8080;") {
		t.Fatalf("%s: no replica lines or listen 127.0.0.1:8080 to replace", path)
	}
	var servers strings.Builder
	for _, a := range addrs {
		fmt.Fprintf(&servers, "\tserver %s %s;\n", a, lines[0][1])
	}
	conf := server.ReplaceAllString(string(data), "")
	conf = strings.Replace(conf, "upstream mcpkit {\n", "upstream mcpkit {\n"+servers.String(), 1)
	return strings.Replace(conf, "listen 127.0.0.1:8080;", fmt.Sprintf("listen 127.0.0.1:%d;", port), 1)
}

// StartBalancer runs nginx (the binary at path nginx) with the deployment
// example at example balancing round robin over addrs, and returns its URL
// and the path of its access log (see Upstreams). nginx is stopped by PID
// when the test ends.
func StartBalancer(t testing.TB, nginx, example string, addrs []string) (url, accessLog string) {
	t.Helper()
	dir := t.TempDir()
	port := FreePort(t)
	// An access log of the upstream each request went to and the session it named.
	conf := NginxConf(dir, "\tlog_format upstream '$upstream_addr|$http_mcp_session_id';\n\taccess_log "+
		dir+"/access.log upstream;\n"+BalancerExample(t, example, addrs, port))
	return RunNginx(t, nginx, dir, conf, port), filepath.Join(dir, "access.log")
}

// Upstreams returns the distinct upstream addresses in a StartBalancer access
// log, of the requests that named session sid (every request for "").
func Upstreams(t testing.TB, accessLog, sid string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(accessLog)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		addrs, session, _ := strings.Cut(line, "|")
		if sid != "" && session != sid {
			continue
		}
		for _, a := range strings.Split(addrs, ", ") { // an upstream retried after a failure
			if a = strings.TrimSpace(a); a != "" && a != "-" {
				seen[a] = true
			}
		}
	}
	return seen
}
