#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# every server scenario: the `all` suite, pending ones included) against
# `octo serve samples/conformance` (then the pre-release line's scores against it and against
# `octo run --config samples/conformance-router`, the same fixtures as flows), each scenario in its own process under
# `timeout` so a hung scenario cannot hang CI. Prints one line per scenario and ends with
# `N passed, M failed`. Then, when the pre-release line is installed (node-next/), it scores
# the same server per protocol revision (`--requirements REV`, the scenarios that revision
# requires, 2026-07-28 included) and prints `REV: N/M required passed` with the scenarios it
# runs but does not score (extensions such as tasks, pending ones). Exits 1 if any scenario
# of the stable suite, any required one or any it runs but does not score failed. The server is always stopped.
#
#   samples/conformance/run.sh [octo binary]       (make conformance)
#
# Environment: CONFORMANCE_PORT (3010), CONFORMANCE_TIMEOUT (seconds per
# scenario, 60), CONFORMANCE_JOBS (scenarios run at once, 4; each is its own
# client with its own session), CONFORMANCE_SCENARIOS (names to run instead
# of all; names of the 0.1.16 suite: the pre-release line is then skipped, run a scenario of it
# with its own CLI, `node-next/.../dist/index.js server --url URL --scenario NAME`),
# CONFORMANCE_REVISIONS (revisions the pre-release line scores,
# "2025-11-25 2026-07-28"; empty skips it).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${1:-$root/.build/octo}"
port="${CONFORMANCE_PORT:-3010}"
per="${CONFORMANCE_TIMEOUT:-60}"
jobs="${CONFORMANCE_JOBS:-4}"
url="http://127.0.0.1:$port/mcp"
node_dir="$here/node"
cli="$node_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
out="$root/.build/conformance"

die() { echo "conformance: $*" >&2; exit 2; }

[ -x "$bin" ] || die "no octo binary at $bin (make build)"
[ -f "$cli" ] || die "suite not installed in $node_dir (make conformance-deps)"
# --import needs Node 20.6; the shim supplies fs.globSync below Node 22.
node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||a===20&&b>=6?0:1)' \
	|| die "needs Node 20.6 or newer, found $(node --version)"

rm -rf "$out" && mkdir -p "$out"

server=""
router=""
stop() {
	for p in $server $router; do
		if kill -0 "$p" 2>/dev/null; then
			kill "$p" 2>/dev/null || true
			wait "$p" 2>/dev/null || true
		fi
	done
}
trap stop EXIT
trap 'exit 130' INT TERM

# await_up PID URL PRINTED LOG WHAT: up when PRINTED (a file) holds URL; gives up after 30 s or
# when PID exits, showing LOG.
await_up() {
	local pid="$1" at="$2" printed="$3" log="$4" what="$5"
	for ((i = 0; i < 300; i++)); do
		grep -q "$at" "$printed" 2>/dev/null && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$what exited before it was up"; }
		sleep 0.1
	done
	cat "$log" >&2
	die "$what not up at $at after 30 s"
}

"$bin" serve "$root/samples/conformance" Conformance --port "$port" >"$out/serve.out" 2>"$out/serve.log" &
server=$!
await_up "$server" "$url" "$out/serve.out" "$out/serve.log" "octo serve"
echo "octo serving $url"

if [ -n "${CONFORMANCE_SCENARIOS:-}" ]; then
	read -r -a scenarios <<<"$CONFORMANCE_SCENARIOS"
else
	# `list --server` prints every server scenario: the `--suite all` set.
	mapfile -t scenarios < <(timeout 60 node --import "$node_dir/globsync.mjs" "$cli" list --server |
		sed -n 's/^  - \([a-z0-9-]*\).*/\1/p')
fi
[ "${#scenarios[@]}" -gt 0 ] || die "the suite listed no server scenarios"
echo "running ${#scenarios[@]} scenarios, $jobs at a time, ${per}s each at most"

# one runs scenario $1 under timeout and leaves its exit code and seconds
# in $out/$1.rc; xargs runs several at once.
one() {
	local s="$1" start=$SECONDS rc=0
	timeout --kill-after=5 "$per" node --import "$node_dir/globsync.mjs" "$cli" \
		server --url "$url" --scenario "$s" >"$out/$s.log" 2>&1 || rc=$?
	echo "$rc $((SECONDS - start))" >"$out/$s.rc"
}
export -f one
export per node_dir cli url out
printf '%s\n' "${scenarios[@]}" | xargs -P "$jobs" -I{} bash -c 'one "$1"' _ {}

passed=0
failed=0
failures=()
for s in "${scenarios[@]}"; do
	read -r rc took <"$out/$s.rc" || { rc=1 took=?; }
	checks="$(grep -o 'Passed: [0-9]*/[0-9]*, [0-9]* failed, [0-9]* warnings' "$out/$s.log" | tail -n 1 || true)"
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		printf '  ✓ %-32s %s (%ss)\n' "$s" "$checks" "$took"
	else
		failed=$((failed + 1))
		why="exit $rc"
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then why="timed out after ${per}s"; fi
		failures+=("$s")
		printf '  ✗ %-32s %s (%s, %ss)\n' "$s" "$checks" "$why" "$took"
	fi
done

for s in "${failures[@]}"; do
	echo
	echo "=== $s ($out/$s.log) ==="
	tail -n 40 "$out/$s.log"
done
echo
echo "$passed passed, $failed failed"

# The pre-release line, one process per revision: each runs that revision's scenarios in turn,
# prints one ✓/✗ line per scenario before "Total:", then lists under "Not scored" the ones
# the revision does not require (extensions, pending).
next_cli="$here/node-next/node_modules/@modelcontextprotocol/conformance/dist/index.js"
revisions="${CONFORMANCE_REVISIONS-2025-11-25 2026-07-28}"
short=0

# score NAME URL LOGPREFIX [ALLOWED]: runs each revision's scenarios against URL and prints
# "NAME REV: N/M required passed"; a required scenario that fails and is not in ALLOWED (names
# a server cannot pass by design, one a line) makes the run short, and so does one it runs but
# does not score.
score() {
	local name="$1" at="$2" prefix="$3" allowed="${4:-}"
	for rev in $revisions; do
		log="$out/$prefix-$rev.log"
		timeout --kill-after=5 600 node --import "$node_dir/globsync.mjs" "$next_cli" \
			server --url "$at" --requirements "$rev" >"$log" 2>&1 || true
		extra="$(sed -n '/^Not scored/,$p' "$log" | grep -E '^ +[✓✗] ' || true)"
		unscored="$(sed -E 's/^ +[✓✗] ([^ ]+).*/\1/' <<<"$extra")"
		scored="$(sed -n '/^Total:/q;/^[✓✗] /p' "$log" | awk -v skip="$unscored" '
			BEGIN { n = split(skip, a, "\n"); for (i = 1; i <= n; i++) if (a[i] != "") drop[a[i]] = 1 }
			{ name = $2; sub(/:$/, "", name); if (!(name in drop)) print }')"
		req=$(grep -c . <<<"$scored" || true)
		ok=$(grep -c '^✓' <<<"$scored" || true)
		echo "$name $rev: $ok/$req required passed (log: $log)"
		(grep '^✗' <<<"$scored" || true) | sed 's/^/  /'
		if [ -n "$extra" ]; then
			missed="$( (grep '✗' <<<"$extra" || true) | sed 's/^ *✗ //' | paste -sd, - | sed 's/,/, /g')"
			echo "  not scored: $(grep -c '✓' <<<"$extra" || true)/$(grep -c . <<<"$extra") passed${missed:+; failing: $missed}"
		fi
		[ "$req" -gt 0 ] || short=1
		# A scenario the revision does not score fails the run too: each passes today, and one
		# that stops passing is a regression all the same.
		while read -r mark scenario _; do
			[ "$mark" = "✗" ] || continue
			scenario="${scenario%:}"
			if grep -qx "$scenario" <<<"$allowed"; then
				echo "  ($scenario: by design, see samples/conformance-router/README.md)"
			else
				short=1
			fi
		done < <(sed -E 's/^ +//' <<<"$extra"; echo "$scored")
	done
}

if [ -n "$revisions" ] && [ -z "${CONFORMANCE_SCENARIOS:-}" ]; then
	[ -f "$next_cli" ] || die "pre-release suite not installed in $here/node-next (make conformance-deps)"
	echo
	score samples/conformance "$url" next

	# The same fixtures answered by flows: samples/conformance-router, an mcp-router.
	rport=$((port + 1))
	rurl="http://127.0.0.1:$rport/mcp"
	CONFORMANCE_PORT="$rport" "$bin" run --config "$root/samples/conformance-router" >"$out/router.out" 2>"$out/router.log" &
	router=$!
	await_up "$router" "$rurl" "$out/router.log" "$out/router.log" "octo run samples/conformance-router"
	echo
	score samples/conformance-router "$rurl" router "$(grep -v '^#' "$root/samples/conformance-router/by-design.txt")"
	kill "$router" 2>/dev/null || true
	wait "$router" 2>/dev/null || true
fi

died=0
kill -0 "$server" 2>/dev/null || { died=1; echo; echo "octo serve died during the run; its log: $out/serve.log"; }
[ "$failed" -eq 0 ] && [ "$short" -eq 0 ] && [ "$died" -eq 0 ]
