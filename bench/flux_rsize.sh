#!/usr/bin/env bash
# The R a job is written, and the content store's growth over a stream of
# whole-node jobs, with the node's topology in the graph: sched-grove
# beside Fluxion given the same topology (the test of flux-sched#1471:
# 18,650 jobs of 40 nodes on 16,384 nodes of El Capitan's CPX shape).
#
#   bench/flux_rsize.sh [--build DIR]
#
# Environment:
#   XML=/opt/flux-core/t/hwloc-data/tuo.CPX.xml   the nodes' topology
#   NODES=16384     nodes of the instance
#   JOBS=18650      jobs in the stream, each NPJ nodes, exclusive
#   NPJ=40
#   SCHEDS="grove-rv1 grove-rv1_nosched fluxion-rv1 fluxion-rv1_shorthand fluxion-rv1_nosched simple"
#                   scheduler and its match-format: sched-grove given the
#                   XML ([sched-grove] hwloc-xml), Fluxion given the
#                   topology's JGF in R (bench/topo_R.lua), or with
#                   fluxion-flat-FORMAT R without it (R_lite and the
#                   nodelist: Fluxion's graph of nodes, cores and GPUs,
#                   where its -N jobs match, as they do not on the
#                   topology's JGF); simple is
#                   flux-core's sched-simple given its TreePool topology
#                   (flux.resource.TreePool.amend) in R
#   FLUXION_DIR=/opt/flux-sched/build
#
# One broker, every rank forced up, jobs under the test execution (1 ms).
# The content store is a state directory's content.sqlite (no journal, no
# sync): its size once the scheduler has placed its first job, and after
# the stream (every job inactive, nothing purged), the difference being
# the stream's; the R of the stream's first job (bytes of `flux job info
# ID R`, and what zlib makes of it); jobs/s over the stream.
# Prints one row a scheduler.  A benchmark, not a test: figures go in
# bench/RESULTS.md.
set -u
. "$(dirname "$0")/lib.sh"
need_flux "$@"
defaults XML=/opt/flux-core/t/hwloc-data/tuo.CPX.xml NODES=16384 JOBS=18650 NPJ=40 \
    SCHEDS="grove-rv1 grove-rv1_nosched fluxion-rv1 fluxion-rv1_shorthand fluxion-rv1_nosched simple" \
    FLUXION_DIR=/opt/flux-sched/build
work=$(mktemp -d /tmp/grove-rsize.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$GROVE" "$top/bench/topo_R.lua" "$XML" "$NODES" "$work/m" > "$work/shape" || die "topo_R failed"
FLUX_SCHED_MODULE=none "$FLUX" python -c '
import json, sys
from flux.resource.TreePool import amend
print(json.dumps(amend(json.load(open(sys.argv[1])), open(sys.argv[2]).read())))' \
    "$work/m.R.json" "$XML" > "$work/m.tree.json" || say "TreePool amend failed"

cat > "$work/inner.sh" <<'EOF'
set -e
sched=$1 build=$2 fluxion=$3 jobs=$4 npj=$5 state=$6
fmt=${sched##*-}
flux module remove -f sched-simple 2>/dev/null || true
flux module reload -f resource monitor-force-up noverify
case $sched in
grove-*) flux module load "$build/flux/sched-grove.so" match-format=$fmt ;;
simple) flux module load sched-simple ;;
fluxion-*)
    flux module load "$fluxion/resource/modules/sched-fluxion-resource.so" match-format=$fmt \
        match-policy=lonodex
    flux module load "$fluxion/qmanager/modules/sched-fluxion-qmanager.so" queue-policy=fcfs ;;
esac
exe="--setattr=system.exec.test.run_duration=0.001s"
flux run $exe -N1 --exclusive true
flux content flush 2>/dev/null || true
size0=$(stat -c %s "$state/content.sqlite")
t0=$(date +%s.%N)
flux submit --cc=1-$jobs --quiet $exe -N$npj --exclusive true
flux queue drain
t1=$(date +%s.%N)
flux content flush 2>/dev/null || true
size1=$(stat -c %s "$state/content.sqlite")
first=$(flux jobs -a -n -o "{id}" | tail -n 1)
flux job info $first R > "$state/R.json"
rb=$(wc -c < "$state/R.json")
zb=$(python3 -c 'import sys, zlib; print(len(zlib.compress(open(sys.argv[1], "rb").read())))' "$state/R.json")
echo "RESULT $(echo "$jobs / ($t1 - $t0)" | bc -l) $size0 $size1 $rb $zb"
case $sched in
fluxion-*) flux module remove sched-fluxion-qmanager; flux module remove sched-fluxion-resource ;;
grove-*) flux module remove sched-grove ;;
simple) flux module remove sched-simple ;;
esac
EOF

printf '%-22s %6s %6s %9s %10s %10s %10s %10s %8s\n' scheduler nodes jobs jobs/s \
    store_MB growth_MB growth_kB/job R_bytes R_zlib
for sched in $SCHEDS; do
    case $sched in
    fluxion-flat-*) [ -f "$FLUXION_DIR/resource/modules/sched-fluxion-resource.so" ] || continue
               R=$work/m.R.json ;;
    fluxion-*) [ -f "$FLUXION_DIR/resource/modules/sched-fluxion-resource.so" ] || continue
               R=$work/m.jgf.json ;;
    simple) R=$work/m.tree.json; [ -s "$R" ] || continue ;;
    *) R=$work/m.R.json ;;
    esac
    conf=$work/conf.$sched
    mkdir -p "$conf"
    printf '[resource]\npath = "%s"\nnoverify = true\n' "$R" > "$conf/conf.toml"
    case $sched in grove-*) printf '[sched-grove]\nhwloc-xml = "%s"\n' "$XML" >> "$conf/conf.toml" ;; esac
    printf '[content-sqlite]\njournal_mode = "OFF"\nsynchronous = "OFF"\n' >> "$conf/conf.toml"
    rm -rf "$work/state"; mkdir -p "$work/state"
    out=$(FLUX_SCHED_MODULE=none timeout -k 10 14400 "$FLUX" start -o,--config-path="$conf" \
        -Sstatedir="$work/state" bash "$work/inner.sh" "$sched" "$build" "$FLUXION_DIR" \
        "$JOBS" "$NPJ" "$work/state" 2>"$work/err")
    row=$(echo "$out" | grep '^RESULT' | tail -n 1)
    if [ -z "$row" ]; then
        printf '%-22s %6s %6s   (failed: %s)\n' "$sched" "$NODES" "$JOBS" "$(tail -n 1 "$work/err")"
        continue
    fi
    set -- $row
    printf '%-22s %6s %6s %9.1f %10.1f %10.1f %10.2f %10s %8s\n' "$sched" "$NODES" "$JOBS" "$2" \
        "$(echo "$3 / 1048576" | bc -l)" "$(echo "($4 - $3) / 1048576" | bc -l)" \
        "$(echo "($4 - $3) / 1024 / $JOBS" | bc -l)" "$5" "$6"
done
