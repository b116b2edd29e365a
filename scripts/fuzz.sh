#!/usr/bin/env bash
# Runs every Go fuzz target of the repository (the main module and bench/, its own
# module) for a fixed budget each, and fails if any of them finds an input that
# fails. Go writes such an input into the package's testdata/fuzz/<Target>/; commit
# it with the fix, so that `go test` replays it from then on. A target that fails
# only by Go 1.26's fuzzing-coordinator race (a bare "context deadline exceeded"
# at the end of its budget, no input written; go.dev/issue/75804) runs once more.
#
# Budget per target: $MCPKIT_FUZZTIME, or 30s when CI=true and 5s otherwise.
# MCPKIT_FUZZJOBS targets run at a time (default 2); MCPKIT_FUZZPARALLEL is passed
# as -parallel, the fuzzing workers of one target (default: the CPUs shared out
# among the jobs, at least 1). Two one-worker jobs on a 2-core machine halve the
# stage's wall time (56 targets: ~15 min at 30 s each instead of ~30) and give
# each target the same 30 s.
# An optional argument is a regular expression: only targets whose
# "package.Target" name matches it run, e.g. scripts/fuzz.sh 'stdio\.FuzzReadLine'.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CI:-}" = true ]; then
	budget=${MCPKIT_FUZZTIME:-30s}
else
	budget=${MCPKIT_FUZZTIME:-5s}
fi
jobs=${MCPKIT_FUZZJOBS:-2}
only=${1:-}
cpus=$(nproc 2>/dev/null || echo 1)
workers=${MCPKIT_FUZZPARALLEL:-$((cpus / jobs > 0 ? cpus / jobs : 1))}
extra=(-parallel "$workers")

logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# list prints "<module dir> <package> <target>" for every fuzz target of the module
# in the current directory: go test -list prints a package's matching names, then
# its "ok <package>" line.
list() {
	go test -list '^Fuzz' ./... | awk -v dir="$1" '
		/^Fuzz/ { names[++n] = $1; next }
		/^ok[ \t]/ { for (i = 1; i <= n; i++) print dir, $2, names[i]; n = 0; next }
		/^(\?|FAIL)[ \t]/ { if ($1 == "FAIL") { print "listing failed: " $0 > "/dev/stderr"; bad = 1 }; n = 0 }
		END { exit bad }'
}

module=$(go list -m)
targets=$( { list .; (cd bench && list bench); } )
if [ -n "$only" ]; then
	targets=$(awk -v re="$only" '{ p = $2; sub(/.*\//, "", p); if ((p "." $3) ~ re) print }' <<<"$targets")
fi
total=$(grep -c . <<<"$targets" || true)
if [ "$total" -eq 0 ]; then
	echo "fuzz: no fuzz targets found" >&2
	exit 1
fi
echo "fuzz: $total targets, $budget each, $jobs at a time with $workers worker(s) each"

# coordinatorRace reports whether a failed run's log is Go 1.26's fuzzing
# coordinator race (go.dev/issue/75804, fixed in Go 1.27): the target fails with a
# bare "context deadline exceeded" as -fuzztime ends, and no input was written.
# A real finding always writes its input.
coordinatorRace() {
	! grep -q 'Failing input written to' "$1" &&
		grep -A1 -- '--- FAIL: Fuzz' "$1" | grep -qx '[[:space:]]*context deadline exceeded'
}

# run fuzzes one target; its output goes to a log, and one line to stdout. A run
# that fails only by the coordinator race is run once more, and says so.
run() {
	local dir=$1 pkg=$2 name=$3 log note=""
	log="$logs/$(tr '/' '_' <<<"$pkg").$name.log"
	fuzz() { (cd "$dir" && go test -run '^$' -fuzz "^$name\$" -fuzztime "$budget" "${extra[@]}" "$pkg") >"$log" 2>&1; }
	if fuzz; then
		echo "ok   $pkg $name"
		return 0
	fi
	if coordinatorRace "$log"; then
		note=" (on its second run: the first hit Go's fuzzing-coordinator race, go.dev/issue/75804, and wrote no input)"
		if fuzz; then
			echo "ok   $pkg $name$note"
			return 0
		fi
	fi
	echo "FAIL $pkg $name$note"
	sed 's/^/    /' "$log"
	# go names the input relative to the package directory.
	sed -n "s|^ *Failing input written to |    input kept in ${pkg#"$module"/}/|p" "$log"
	return 1
}

failed=()
running=0
declare -A names
while read -r dir pkg name; do
	run "$dir" "$pkg" "$name" &
	names[$!]="$pkg $name"
	running=$((running + 1))
	if [ "$running" -ge "$jobs" ]; then
		wait -n -p done || failed+=("${names[$done]}")
		running=$((running - 1))
	fi
done <<<"$targets"
while [ "$running" -gt 0 ]; do
	wait -n -p done || failed+=("${names[$done]}")
	running=$((running - 1))
done

if [ ${#failed[@]} -gt 0 ]; then
	echo "fuzz: ${#failed[@]} of $total targets failed:" >&2
	printf '  %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "fuzz: all $total targets passed"
