#!/usr/bin/env bash
# Task slots kept local on real machine topologies, in real Flux
# instances: the share of slots whose cores and GPUs share one NUMA domain,
# and the throughput of the same stream, for sched-grove with the node's
# topology, without it, Fluxion given the same topology and flux-core's
# own scheduler given it.
#
#   bench/flux_topo.sh [--build DIR]
#
# Environment:
#   XMLS="tuo.SPX tuo.TPX tuo.CPX sierra corona ipa20"  hwloc XMLs, by name
#                   in XMLDIR or by path
#   XMLDIR=/opt/flux-core/t/hwloc-data
#   SIZES="64 1024" nodes of the instance, every one of the XML's shape
#   SCHEDS="grove grove-flat fluxion simple"  who schedules:
#     grove        sched-grove, [sched-grove] hwloc-xml naming the XML
#     grove-jgf    sched-grove given Fluxion's R (the topology's JGF)
#     grove-flat   sched-grove, topology = "flat" (R_lite's cores and GPUs)
#     fluxion      Fluxion (resource + qmanager, fcfs, match-policy first),
#                  R with the topology's JGF in its scheduling key
#     simple       flux-core's sched-simple, R with flux-core's own
#                  TreePool topology of the XML in its scheduling key
#                  (flux.resource.TreePool.amend)
#   FILL=2          jobs: FILL times as many as fill the machine (1 to 4
#                   slots a job, 2.5 on average), at most MAXJOBS
#   MAXJOBS=6000
#   DMIN, DMAX      a job's run time is drawn in [DMIN, DMAX] seconds
#                   (default 5-20 at 64 nodes, 60-180 at more), so the
#                   machine fills, then turns over
#   TPUT_JOBS=2000  then the throughput stream: as many jobs of the same
#                   shapes, each 1 ms, on the empty machine (scheduler-bound)
#   REPS=1          runs of each
#   FLUXION_DIR=/opt/flux-sched/build
#   KEEP=DIR        keep each run's jobs (JSON lines) in DIR
#
# A slot is C cores and G GPUs that fit one domain of the XML (SLOT_xml
# below), a job 1 to 4 slots (flux submit -n K -c C -g G, no node count:
# slots may go to several nodes); jobs are submitted at once, run under the
# test execution (no job shell: the ranks have no broker), in fcfs order.
# The share is computed by bench/topo_quality.py from each job's R and the
# XML, with nothing of Grove; it also counts the slots that spread while a
# local fit existed when their job was allocated.
#
# Prints one row a run: xml, nodes, scheduler, jobs, slots, local share,
# spread with a local fit, fill-stream jobs/s, throughput-stream jobs/s,
# the machine's load.
# A benchmark, not a test: figures go in bench/RESULTS.md.
set -u
. "$(dirname "$0")/lib.sh"
need_flux "$@"
defaults XMLS="tuo.SPX tuo.TPX tuo.CPX sierra corona ipa20" XMLDIR=/opt/flux-core/t/hwloc-data \
    SIZES="64 1024" SCHEDS="grove grove-flat fluxion simple" FILL=2 MAXJOBS=6000 \
    TPUT_JOBS=2000 REPS=1 FLUXION_DIR=/opt/flux-sched/build
work=$(mktemp -d /tmp/grove-topo.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A slot that fits a domain of each machine: cores, GPUs.
slot_of() {
    case $(basename "$1" .xml) in
    tuo.SPX) echo "20 1" ;;
    tuo.TPX) echo "8 1" ;;
    tuo.CPX) echo "6 1" ;;
    sierra) echo "20 1" ;;
    corona) echo "6 1" ;;
    ipa20) echo "12 1" ;;
    *) echo "4 1" ;;
    esac
}

cat > "$work/inner.sh" <<'EOF'
set -e
sched=$1 top=$2 build=$3 fluxion=$4 xml=$5 C=$6 G=$7 jobs=$8 dmin=$9 dmax=${10} out=${11} tput=${12}
flux module remove -f sched-simple 2>/dev/null || true
flux module reload -f resource monitor-force-up noverify
case $sched in
grove|grove-jgf) flux module load "$build/flux/sched-grove.so" ;;
grove-flat) flux module load "$build/flux/sched-grove.so" topology=flat ;;
simple) flux module load sched-simple ;;
fluxion)
    flux module load "$fluxion/resource/modules/sched-fluxion-resource.so" match-policy=first
    flux module load "$fluxion/qmanager/modules/sched-fluxion-qmanager.so" queue-policy=fcfs ;;
esac
flux python "$top/bench/flux/topo_stream.py" --jobs "$jobs" --cores "$C" --gpus "$G" \
    --min "$dmin" --max "$dmax" --out "$out"
if [ "$tput" -gt 0 ]; then
    flux python "$top/bench/flux/topo_stream.py" --jobs "$tput" --cores "$C" --gpus "$G" \
        --seed 2 | sed 's/^STREAM/TPUT/'
fi
case $sched in
fluxion) flux module remove sched-fluxion-qmanager; flux module remove sched-fluxion-resource ;;
simple) flux module remove sched-simple ;;
*) flux module remove sched-grove ;;
esac
EOF

printf '%-8s %6s %-11s %6s %7s %7s %7s %9s %9s %5s\n' xml nodes scheduler jobs slots local \
    missed fill_j/s tput_j/s load
for x in $XMLS; do
    case $x in /*) xml=$x ;; *) xml=$XMLDIR/$x.xml ;; esac
    [ -f "$xml" ] || { say "no $xml: skipped"; continue; }
    read -r C G <<< "$(slot_of "$xml")"
    for size in $SIZES; do
        dir=$work/$(basename "$xml" .xml).$size
        mkdir -p "$dir"
        "$GROVE" "$top/bench/topo_R.lua" "$xml" "$size" "$dir/m" > "$dir/shape" || die "topo_R failed"
        # the machine's slots: a domain holds min(cores / C, GPUs / G)
        per_node=$(python3 -c '
import sys, importlib.util
spec = importlib.util.spec_from_file_location("q", sys.argv[1])
q = importlib.util.module_from_spec(spec); spec.loader.exec_module(q)
n = q.Node(sys.argv[2]); C, G = int(sys.argv[3]), int(sys.argv[4])
print(sum(min(sum(1 for d in n.core_dom if d == i) // C,
              sum(1 for g in n.gpu_dom if i in g) // G if G else 10**9)
          for i in range(len(n.domains))))' "$top/bench/topo_quality.py" "$xml" "$C" "$G")
        jobs=$(( size * per_node * FILL * 2 / 5 ))
        [ "$jobs" -gt "$MAXJOBS" ] && jobs=$MAXJOBS
        if [ "$size" -le 64 ]; then dmin=${DMIN:-5} dmax=${DMAX:-20}; else dmin=${DMIN:-60} dmax=${DMAX:-180}; fi
        # flux-core's TreePool R (its own topology of the XML)
        FLUX_SCHED_MODULE=none "$FLUX" python -c '
import json, sys
from flux.resource.TreePool import amend
R = json.load(open(sys.argv[1]))
print(json.dumps(amend(R, open(sys.argv[2]).read())))' "$dir/m.R.json" "$xml" > "$dir/m.tree.json" \
            || say "TreePool amend failed: simple runs without topology"
        for rep in $(seq 1 "$REPS"); do
            for sched in $SCHEDS; do
                case $sched in
                fluxion) [ -f "$FLUXION_DIR/resource/modules/sched-fluxion-resource.so" ] || continue
                         R=$dir/m.jgf.json ;;
                grove-jgf) R=$dir/m.jgf.json ;;
                simple) R=$dir/m.tree.json; [ -s "$R" ] || R=$dir/m.R.json ;;
                *) R=$dir/m.R.json ;;
                esac
                conf=$dir/conf.$sched
                mkdir -p "$conf"
                printf '[resource]\npath = "%s"\nnoverify = true\n' "$R" > "$conf/conf.toml"
                [ "$sched" = grove ] && printf '[sched-grove]\nhwloc-xml = "%s"\n' "$xml" >> "$conf/conf.toml"
                out=$work/jobs.jsonl
                res=$(FLUX_SCHED_MODULE=none timeout -k 10 7200 "$FLUX" start -o,--config-path="$conf" \
                    bash "$work/inner.sh" "$sched" "$top" "$build" "$FLUXION_DIR" "$xml" "$C" "$G" \
                    "$jobs" "$dmin" "$dmax" "$out" "$TPUT_JOBS" 2>"$work/err")
                row=$(echo "$res" | grep '^STREAM' | tail -n 1)
                if [ -z "$row" ]; then
                    printf '%-8s %6s %-11s   (failed: %s)\n' "$(basename "$xml" .xml)" "$size" "$sched" \
                        "$(tail -n 1 "$work/err")"
                    continue
                fi
                tput=$(echo "$res" | grep '^TPUT' | tail -n 1 | cut -d' ' -f4)
                q=$(python3 "$top/bench/topo_quality.py" "$xml" "$out" --nodes "$size" --json)
                [ -z "${KEEP:-}" ] || cp "$out" "$KEEP/$(basename "$xml" .xml).$size.$sched.$rep.jsonl"
                python3 -c 'import json, sys
q = json.loads(sys.argv[1]); s = sys.argv[2].split()
print("%-8s %6s %-11s %6d %7d %7.4f %7d %9.1f %9s %5s" % (sys.argv[3], sys.argv[4], sys.argv[5],
      q["jobs"], q["slots"], q["share"], q["spread_with_local_fit"], float(s[3]),
      sys.argv[6] or "-", sys.argv[7]))' "$q" "$row" "$(basename "$xml" .xml)" "$size" "$sched" \
                    "${tput:-}" "$(cut -d' ' -f1 /proc/loadavg)"
            done
        done
    done
done
