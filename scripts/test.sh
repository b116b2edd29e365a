#!/usr/bin/env bash
# Runs every mcpkit test on a fresh machine: installs what the tests need (Go
# modules, the pinned npm peers, and its Debian packages if missing), then
# vets, tests with -race, runs each benchmark briefly so a broken one shows up, and
# fuzzes every fuzz target for a short budget (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use: Node.js for the npm peers, nginx for the proxy test, chromium and tmux for the tap's views,
# redis-server for the shared stores (store/redistest starts one per test; under CI=true a
# missing redis-server fails those tests instead of skipping them).
missing=()
command -v node >/dev/null && command -v npm >/dev/null || missing+=(nodejs npm)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
# Headless Chromium for the tap's web view test (tap/view/web), tmux for its terminal UI test.
command -v chromium >/dev/null || missing+=(chromium)
command -v tmux >/dev/null || missing+=(tmux)
# Prometheus for the metrics test (cmd/mcpkit: it scrapes a gateway; under CI=true a missing one fails it).
command -v prometheus >/dev/null || [ -x /usr/bin/prometheus ] || missing+=(prometheus)
if [ ${#missing[@]} -gt 0 ]; then
	echo "== installing Debian packages: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
	# The package starts a default site on port 80; the tests run their own nginx.
	if [[ " ${missing[*]} " == *" nginx "* ]]; then service nginx stop >/dev/null 2>&1 || true; fi
	# Likewise the default Redis on port 6379: the tests start their own on free ports.
	if [[ " ${missing[*]} " == *" redis-server "* ]]; then service redis-server stop >/dev/null 2>&1 || true; fi
	# And the default Prometheus on port 9090: the test starts its own.
	if [[ " ${missing[*]} " == *" prometheus "* ]]; then service prometheus stop >/dev/null 2>&1 || true; fi
fi
redis-server --version 2>/dev/null || true
export PATH="$PATH:/usr/sbin"

echo "== go modules"
go mod download
(cd bench && go mod download)

echo "== npm peers (pinned in interop/ and conformance/ package-lock.json)"
npm ci --prefix interop --no-audit --no-fund --loglevel=error
# The official conformance suite, with Node 22 from the npm registry (node@22).
npm ci --prefix conformance --no-audit --no-fund --loglevel=error
# The stdio→HTTP bridges the gateway benchmark compares against (bench/package.json).
npm ci --prefix bench --no-audit --no-fund --loglevel=error

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 -timeout 20m ./...

echo "== benchmarks (brief run: a smoke test, not a measurement)"
go test -run '^$' -bench . -benchtime 200x -benchmem ./... >/dev/null

echo "== cross-SDK benchmark harness (bench/, its own module): every server and mode, briefly"
(cd bench && go vet ./... && go test -count=1 -timeout 10m ./...)

echo "== fuzz (every Fuzz target of both modules: 30s each when CI=true, 5s otherwise; MCPKIT_FUZZTIME overrides)"
scripts/fuzz.sh

echo "== ok"
