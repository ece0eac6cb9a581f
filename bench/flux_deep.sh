#!/usr/bin/env bash
# A deep queue at 16,384 nodes: how a scheduler keeps up with thousands of
# pending jobs (flux-sched#1222: matches of seconds with a deep,
# constrained queue).
#
#   bench/flux_deep.sh [--build DIR]
#
# Environment:
#   NODES=16384   nodes of the instance's R (44 cores + 4 GPUs each);
#                 properties batch (the first three quarters), rare (the
#                 last four ranks, drained: jobs asking it never run)
#   JOBS=10000    jobs in the deep queue
#   SCHEDS="none grove-easy-64 grove-easy-unlimited grove-conservative-64
#           grove-conservative-unlimited fluxion-easy fluxion-conservative
#           backfill"
#                 none: no scheduler, the jobs submitted and left pending:
#                 the broker's memory without a scheduler, which the rows
#                 after it are given against (+MB);
#                 grove-POLICY-DEPTH: sched-grove, queue policy POLICY,
#                 reserve depth DEPTH; fluxion-POLICY: Fluxion's modules
#                 (from FLUXION_DIR, a flux-sched build tree; skipped
#                 without); backfill: flux-core's sched-backfill
#   FLUXION_DIR=/opt/flux-sched/build
#   TIMEOUT=7200  seconds a scheduler's instance may run
#
# One broker, every rank forced up, jobs under the test execution.  The
# machine is first filled (16 exclusive jobs for an hour), then JOBS jobs
# are submitted behind: sizes from a core to 1,024 exclusive nodes, GPU
# jobs, property and hostlist constraints, and 5% that can never run
# (they ask for the drained ranks' property).  Then the fill is
# cancelled and the queue drains.  Prints per scheduler: the time to
# submit the queue (the feasibility check of each job included), the
# feasibility.check round trip (p50, p99 ms, 1,000 of the jobs' requests
# asked as the queue is submitted, 50 after each 500), the wall time of `flux resource list` (and, beside it,
# its sched.resource-status round trip in ms, rs_ms, and the start-up of
# its Python with no request, floor_s; and what the command asks, the
# resource module's resource.sched-status round trip, rsrc_ms, and the
# command given that answer on its standard input, off_s: list_s is
# about rsrc_ms and off_s), broker RSS (and what it holds
# over the row "none", +MB), heartbeat.ping's round trip asked after each
# check (ping50/ping99 ms: any module's answer at that moment),
# jobs/s while the queue drains; and for sched-grove its own figures:
# per-match p50/p99/max (ms), a pass's p50/p99/max (ms) and, beside
# them, the p50 and p99 of the CPU time of the module's thread in a pass
# (cpu50/cpu99 ms: what is left of the wall time is its wait for a CPU
# the broker's other threads held), annotations sent per job.  A benchmark, not a test: figures go in bench/RESULTS.md.
set -u
build=build
[ "${1:-}" = "--build" ] && build=$2
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=${FLUX_PREFIX:-/opt/flux}
FLUX=$prefix/bin/flux
if [ ! -x "$FLUX" ]; then
    echo "flux_deep: flux-core not found under $prefix (set FLUX_PREFIX)" >&2
    exit 2
fi
NODES=${NODES:-16384}
JOBS=${JOBS:-10000}
SCHEDS=${SCHEDS:-"none grove-easy-64 grove-easy-unlimited grove-conservative-64
grove-conservative-unlimited fluxion-easy fluxion-conservative backfill"}
FLUXION_DIR=${FLUXION_DIR:-/opt/flux-sched/build}
TIMEOUT=${TIMEOUT:-7200}
case $build in /*) ;; *) build=$top/$build ;; esac
work=$(mktemp -d /tmp/grove-deep.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT

last=$((NODES - 1))
"$FLUX" R encode --ranks=0-$last --hosts="node[0-$last]" --cores=0-43 --gpus=0-3 \
    --property=batch:0-$((NODES * 3 / 4 - 1)) --property=rare:$((NODES - 4))-$last \
    > "$work/R.json"
cat > "$work/conf.toml" <<EOF
[resource]
path = "$work/R.json"
noverify = true
EOF

cat > "$work/inner.sh" <<'EOF'
set -e
sched=$1 build=$2 jobs=$3 nodes=$4 top=$5 fluxion=$6
flux module remove -f sched-simple 2>/dev/null || true
flux module reload -f resource monitor-force-up noverify
# the rare ranks drained before any scheduler loads: flux-core applies a
# drain of ranks with no broker but fails (ENOENT, looking the host up in
# the broker's host map) before it posts the event, so a scheduler loaded
# earlier would never hear of it; one loaded after finds them down in the
# first resource.acquire response
flux resource drain $((nodes - 4))-$((nodes - 1)) deep 2>/dev/null || true
stats=
case $sched in
grove-*)
    rest=${sched#grove-}; policy=${rest%-*}; depth=${rest##*-}
    flux module load "$build/flux/sched-grove.so" queue-policy=$policy reserve-depth=$depth
    stats=sched-grove ;;
fluxion-*)
    flux module load "$fluxion/resource/modules/sched-fluxion-resource.so"
    flux module load "$fluxion/qmanager/modules/sched-fluxion-qmanager.so" \
        queue-policy=${sched#fluxion-}
    # Fluxion 0.54 answers feasibility.check in a module of its own
    if [ -f "$fluxion/resource/modules/sched-fluxion-feasibility.so" ]; then
        flux module load "$fluxion/resource/modules/sched-fluxion-feasibility.so"
    fi
    flux module stats sched-fluxion-resource >/dev/null ;;
backfill) flux module load sched-backfill ;;
none) stats=--baseline ;;
esac
if [ "$stats" = --baseline ]; then
    flux python "$top/bench/flux/deep.py" --jobs "$jobs" --nodes "$nodes" --baseline
else
    flux python "$top/bench/flux/deep.py" --jobs "$jobs" --nodes "$nodes" --stats "$stats"
fi
case $sched in
fluxion-*)
    flux module remove -f sched-fluxion-feasibility
    flux module remove sched-fluxion-qmanager; flux module remove sched-fluxion-resource ;;
esac
EOF

printf '%-30s %8s %8s %8s %7s %7s %7s %7s %6s %7s %6s %6s %6s %7s %8s %8s %8s %8s %8s %8s %8s %8s %7s\n' \
    scheduler submit_s feas50ms feas99ms ping50 ping99 list_s rs_ms floor_s rsrc_ms off_s \
    rss_MB +MB jobs/s match50 match99 matchmx pass50 pass99 passmx cpu50 cpu99 ann/job
base=
for sched in $SCHEDS; do
    case $sched in
    fluxion-*) [ -f "$FLUXION_DIR/resource/modules/sched-fluxion-resource.so" ] || {
        printf '%-30s (skipped: no Fluxion modules in %s)\n' "$sched" "$FLUXION_DIR"; continue; } ;;
    esac
    out=$(FLUX_SCHED_MODULE=none timeout -k 10 "$TIMEOUT" "$FLUX" start \
        -o,--config-path="$work" bash "$work/inner.sh" "$sched" "$build" "$JOBS" "$NODES" \
        "$top" "$FLUXION_DIR" 2>"$work/err")
    row=$(echo "$out" | grep '^DEEP' | tail -n 1)
    if [ -z "$row" ]; then
        printf '%-30s (failed: %s)\n' "$sched" "$(tail -n 1 "$work/err")"
        continue
    fi
    [ "$sched" = none ] && base=$(echo "$row" | awk '{print $8}')
    echo "$row" | python3 -c '
import json, sys
f = sys.stdin.read().split(" ", 14)
s = json.loads(f[14]) if len(f) > 14 else {}
base = sys.argv[2]
plus = str(int(f[7]) - int(base)) if base and f[7] != "-" and sys.argv[1] != "none" else "-"
def ms(k, q):
    v = s.get(k, {}).get(q)
    return "%.2f" % (v / 1e3) if v is not None else "-"
m = s.get("match_time", {})
print("%-30s %8s %8s %8s %7s %7s %7s %7s %6s %7s %6s %6s %6s %7s %8s %8s %8s %8s %8s %8s %8s %8s %7s" % (
      sys.argv[1], f[1], f[2], f[3], f[10], f[11], f[4], f[5], f[6], f[12], f[13], f[7], plus, f[8],
      ms("match_dist", "p50_us"),
      ms("match_dist", "p99_us"), "%.2f" % (m["max"] * 1e3) if m.get("max") else "-",
      ms("pass_time", "p50_us"), ms("pass_time", "p99_us"), ms("pass_time", "max_us"),
      ms("pass_cpu", "p50_us"), ms("pass_cpu", "p99_us"), f[9]))' \
        "$sched" "$base"
done
