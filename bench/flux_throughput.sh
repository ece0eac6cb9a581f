#!/usr/bin/env bash
# Scheduler throughput, start-up and memory in a real Flux instance, for
# sched-grove beside the other schedulers, on the same instance shape.
#
#   bench/flux_throughput.sh [--build DIR]
#
# Environment:
#   SIZES="1024 16384"   nodes of the instance's R (44 cores + 4 GPUs each)
#   JOBS="1000"          jobs a run
#   SHAPES="N1 n1"       -N1 jobs and -n1 jobs
#   SCHEDS="ceiling grove-fcfs grove-easy simple fluxion-fcfs fluxion-easy"
#   FLUXION_DIR=/opt/src/flux-sched/build  a flux-sched build tree (its
#                        modules loaded by path); fluxion-* skipped without
#   REPS=2               runs of each
#   STATS_DIR=DIR        keep each run's `flux module stats` JSON there
#   PLACEMENT=fresh      sched-grove's placement-policy, and grove query's -P
#                        for the query row (its `first` is Fluxion's, Grove's
#                        fresh: the same policy on both sides)
#   PACE=RATE            submit the JOBS jobs one by one at RATE jobs/s (a
#                        steady stream well below the throughput: latency
#                        without a queue of a thousand behind it) instead
#                        of all at once; jobs/s is then the rate reached
#
# A scheduler may be given as NAME@DIR: the module of the build directory
# DIR (e.g. grove-fcfs@/tmp/grove-main/build, a copy of another branch
# built elsewhere), to compare two builds in one run, interleaved.
#
# One broker; the R names every node (flux R encode), the resource module
# is reloaded with every rank forced up (the ranks have no broker), and
# jobs run under the test execution (system.exec.test.run_duration), which
# starts and ends a job without a shell: what is measured is the
# scheduler's share.  A run: load the scheduler, time the first job (the
# module's load to the first job's end: "ready"), then submit JOBS jobs
# (flux submit --cc) and time submit to the end of `flux queue drain`;
# the broker's resident memory after the drain.
#
# Prints one row a run: scheduler, size, shape, jobs/s, ready s, RSS MB,
# jobs completed; for sched-grove and the ceiling their alloc latencies
# (`flux module stats`, bindings/flux/alloc_stamps.h): p50 and p99 of the
# wall clock from the alloc handler's entry to the success response sent
# after R's KVS commit (p50_us, p99_us), of the wall clock to R handed to
# the commit (hand_p50, hand_p99) and of the module thread's CPU time over
# that (cpu_p50, cpu_p99), the largest of both (hand_max, cpu_max), the
# loop's own match time (mean and largest: match_avg, match_max, the
# matcher's call alone); and the machine's load average (1 min) after the
# run.
# The schedulers:
#   ceiling        build/flux/sched-ceiling.so: grants every job the
#                  nodes, cores and GPUs it asks for on the next ranks in
#                  turn, without matching or bookkeeping
#                  (bench/flux/sched_ceiling.c)
#   grove-fcfs     build/flux/sched-grove.so queue-policy=fcfs
#   grove-easy     build/flux/sched-grove.so queue-policy=easy
#   simple         flux-core's default (sched-simple)
#   fluxion-fcfs   Fluxion's resource + qmanager modules, policy fcfs
#   fluxion-easy   the same, queue-policy=easy
#   query          not an instance: the same stream through `grove query -e`
#                  on the same R (the engine's match, end to end of the
#                  command, with the graph and policy the module uses),
#                  each job cancelled once 8 more are placed (the 1 ms jobs
#                  of the instance leave as few running); fills match_avg,
#                  match_p50, match_p99 and match_max only
set -u
. "$(dirname "$0")/lib.sh"
need_flux "$@"
SIZES=${SIZES:-"1024 16384"}
JOBS=${JOBS:-1000}
SHAPES=${SHAPES:-"N1 n1"}
SCHEDS=${SCHEDS:-"ceiling grove-fcfs grove-easy simple fluxion-fcfs fluxion-easy"}
FLUXION_DIR=${FLUXION_DIR:-/opt/src/flux-sched/build}
REPS=${REPS:-2}
work=$(mktemp -d /tmp/grove-tput.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Paced submission: $1 jobs at $2 jobs/s, $3 -N1 or -n1 (flux python).
cat > "$work/paced.py" <<'EOF'
import sys, time
import flux, flux.job
n, rate, shape = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
h = flux.Flux()
if shape == "-N1":
    js = flux.job.JobspecV1.from_command(["true"], num_nodes=1, num_tasks=1)
else:
    js = flux.job.JobspecV1.from_command(["true"], num_tasks=1)
js.setattr("system.exec.test.run_duration", "0.001s")
t0 = time.monotonic()
for i in range(n):
    delay = t0 + i / rate - time.monotonic()
    if delay > 0:
        time.sleep(delay)
    flux.job.submit(h, js)
EOF

# The script run inside the instance: $1 scheduler, $2 shape, $3 jobs.
cat > "$work/inner.sh" <<'EOF'
set -e
sched=$1 shape=$2 jobs=$3 top=$4 build=$5 fluxion=$6 pace=$7 work=$8
case $sched in *@*) build=${sched#*@}; sched=${sched%%@*} ;; esac
case $build in /*) ;; *) build=$top/$build ;; esac
flux module remove -f sched-simple 2>/dev/null || true
flux module reload -f resource monitor-force-up noverify
t0=$(date +%s.%N)
case $sched in
ceiling) flux module load "$build/flux/sched-ceiling.so" ;;
grove-*) flux module load "$build/flux/sched-grove.so" queue-policy=${sched#grove-} \
             placement-policy=${PLACEMENT:-fresh} ;;
simple) flux module load sched-simple ;;
fluxion-*)
    flux module load "$fluxion/resource/modules/sched-fluxion-resource.so"
    flux module load "$fluxion/qmanager/modules/sched-fluxion-qmanager.so" \
        queue-policy=${sched#fluxion-} ;;
esac
exe="--setattr=system.exec.test.run_duration=0.001s"
flux run $exe -n1 true
t1=$(date +%s.%N)
if [ "$shape" = N1 ]; then size="-N1"; else size="-n1"; fi
t2=$(date +%s.%N)
if [ -n "$pace" ]; then
    flux python "$work/paced.py" "$jobs" "$pace" "$size"
else
    flux submit --cc=1-$jobs --quiet $exe $size true
fi
flux queue drain
t3=$(date +%s.%N)
pid=$(flux getattr broker.pid)
rss=$(awk '/VmRSS/ {print $2}' /proc/$pid/status)
n=$(flux jobs -a -n -o "{result}" | grep -c COMPLETED)
lat="- - - - - - - - - - - -"
case $sched in
ceiling) mod=sched-ceiling ;;
grove-*) mod=sched-grove ;;
*) mod= ;;
esac
if [ -n "$mod" ]; then
    flux module stats $mod > "$work/stats.json"
    [ -z "${STATS_DIR:-}" ] || cp "$work/stats.json" "$STATS_DIR/$sched.$shape.$(date +%s).json"
    lat=$(python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))
print(" ".join("%.0f %.0f" % (s[k]["p50_us"], s[k]["p99_us"]) if "p99_us" in s.get(k, {})
               else "- -" for k in ("alloc_latency", "alloc_handed", "alloc_cpu")),
      " ".join("%.0f" % s[k]["max_us"] if "max_us" in s.get(k, {}) else "-"
               for k in ("alloc_handed", "alloc_cpu")),
      " ".join("%.0f" % (s["match_time"][k] * 1e6) if s.get("match_time", {}).get(k) else "-"
               for k in ("avg", "max")),
      " ".join("%.0f" % s["match_dist"][k] if k in s.get("match_dist", {}) else "-"
               for k in ("p50_us", "p99_us")))' "$work/stats.json")
fi
echo "RESULT $(echo "$jobs / ($t3 - $t2)" | bc -l) $(echo "$t1 - $t0" | bc -l) $((rss / 1024)) $n $lat"
case $sched in
fluxion-*) flux module remove sched-fluxion-qmanager; flux module remove sched-fluxion-resource ;;
ceiling) flux module remove sched-ceiling ;;
grove-*) flux module remove sched-grove ;;
esac
EOF

# The same stream through grove query on DIR's R: $1 DIR, $2 shape, $3
# jobs; prints "avg p50 p99 max" of the match commands' wall (us).
query_stream() {
    local dir=$1 shape=$2 jobs=$3 size
    if [ "$shape" = N1 ]; then size="-N1"; else size="-n1"; fi
    "$FLUX" submit --dry-run $size --setattr=system.exec.test.run_duration=0.001s true \
        > "$work/q.json"
    awk -v n="$jobs" -v f="$work/q.json" 'BEGIN {
        for (i = 1; i <= n; i++) {
            print "match allocate " f
            if (i > 8) print "cancel " i - 8
        }
        print "quit" }' > "$work/q.in"
    "$build/grove" query -L "$dir/R.json" -f rv1exec -P "${PLACEMENT:-fresh}" -e -d -F rv1_nosched < "$work/q.in" \
        | awk -F= '/ELAPSED=/ { print $2 * 1e6 }' | sort -n | awk '
        { t[NR] = $1; s += $1 }
        END { if (NR == 0) { print "- - - -"; exit }
              p = int(NR * 0.99); if (p < 1) p = 1
              printf "%.0f %.0f %.0f %.0f\n", s / NR, t[int((NR + 1) / 2)], t[p], t[NR] }'
}

printf '%-14s %6s %5s %9s %8s %8s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %9s %5s\n' \
    scheduler nodes shape jobs/s ready_s rss_MB done p50_us p99_us hand_p50 hand_p99 \
    cpu_p50 cpu_p99 hand_max cpu_max match_avg match_max match_p50 match_p99 load
for size in $SIZES; do
    dir=$work/conf$size
    mkdir -p "$dir"
    flux_R "$dir" "$size"
    for rep in $(seq 1 "$REPS"); do
        for shape in $SHAPES; do
            for sched in $SCHEDS; do
                case ${sched%%@*} in
                query)
                    set -- $(query_stream "$dir" "$shape" "$JOBS")
                    printf '%-14s %6s %5s %9s %8s %8s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %9s %5s\n' \
                        query "$size" "$shape" - - - "$JOBS" - - - - - - - - "$1" "$4" "$2" "$3" \
                        "$(cut -d' ' -f1 /proc/loadavg)"
                    continue ;;
                fluxion-*) [ -f "$FLUXION_DIR/resource/modules/sched-fluxion-resource.so" ] || continue ;;
                esac
                out=$(PLACEMENT=${PLACEMENT:-fresh} FLUX_SCHED_MODULE=none timeout -k 10 1200 "$FLUX" start \
                    -o,--config-path="$dir" bash "$work/inner.sh" "$sched" "$shape" "$JOBS" \
                    "$top" "$build" "$FLUXION_DIR" "${PACE:-}" "$work" 2>"$work/err")
                row=$(echo "$out" | grep '^RESULT' | tail -n 1)
                if [ -z "$row" ]; then
                    printf '%-14s %6s %5s %9s   (failed: %s)\n' "$sched" "$size" "$shape" - \
                        "$(tail -n 1 "$work/err")"
                    continue
                fi
                set -- $row
                printf '%-14s %6s %5s %9.1f %8.2f %8s %6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %9s %9s %5s\n' \
                    "${sched%%@*}" "$size" "$shape" "$2" "$3" "$4" "$5" "$6" "$7" "$8" "$9" \
                    "${10}" "${11}" "${12}" "${13}" "${14}" "${15}" "${16}" "${17}" \
                    "$(cut -d' ' -f1 /proc/loadavg)"
            done
        done
    done
done
