#!/usr/bin/env bash
# Runs every mcpkit test on a fresh machine: installs what the tests need (Go
# modules, the pinned npm peers, Node if missing), then vets, tests with -race, and
# runs each benchmark briefly so a broken one shows up.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "== installing Node.js (Debian packages)"
	apt-get update -qq && apt-get install -y -qq nodejs npm
fi

echo "== go modules"
go mod download

echo "== npm peers (pinned in interop/package-lock.json)"
npm ci --prefix interop --no-audit --no-fund --loglevel=error

echo "== go vet"
go vet ./...

echo "== go test -race"
go test -race -count=1 -timeout 20m ./...

echo "== benchmarks (brief run: a smoke test, not a measurement)"
go test -run '^$' -bench . -benchtime 200x -benchmem ./... >/dev/null

echo "== ok"
