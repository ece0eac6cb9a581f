#!/usr/bin/env bash
# A long soak of sched-grove in a real Flux instance: a stream of mixed
# jobs with every kind of disturbance a site sees, and what it leaves.
#
#   bench/flux_soak.sh [--build DIR]
#
# Environment:
#   NODES=16384      nodes of the instance's R (44 cores + 4 GPUs each);
#                    every rank forced up, jobs under the test execution
#                    (no shells: the scheduler's share)
#   BROKERS=8        brokers of the instance (ranks 0 to BROKERS-1 of R);
#                    drains name only these (see soak.py)
#   JOBS=100000      jobs in the stream
#   SCHEDS="grove-fcfs grove-easy ceiling"   who runs it; ceiling is the
#                    do-nothing module (grants each job the shape it asks
#                    for on the next ranks in turn, no matching): the
#                    throughput bound on the same stream.  A name may come
#                    more than once ("ceiling grove-easy ceiling
#                    grove-easy"): the shares are then over every run
#   CEILING_ARGS="window summary"   the ceiling's arguments: window
#                    writes R's starttime and expiration (the job's time
#                    limit) as every flux-core scheduler does, and as
#                    sched-grove does (without it R has no time limit,
#                    and the execution system none to keep); summary
#                    annotates each success with its resource summary, as
#                    flux-core's schedulers and sched-grove do; one-core
#                    grants every job one core of one rank whatever it
#                    asks (the bound first used: the rest of Flux then
#                    handles a one-rank R for a job of 512 nodes).  Empty:
#                    the jobs' shapes with neither window nor summary
#   SEED=1           the stream's random seed (the same stream for each)
#   PURGE_AGE=60s    the job manager's inactive-age-limit: inactive jobs
#                    purged after this long (flux-core keeps every inactive
#                    job in the broker's memory otherwise, tens of kB each,
#                    the same under any scheduler; purged, the broker's
#                    growth is the scheduler's).  The job manager's own
#                    purge takes 100 jobs a KVS commit, one commit at a
#                    time, at most once a heartbeat: on this stream's pace
#                    it falls behind (23,000 inactive jobs kept of 23,000),
#                    so the driver asks for the same purge too, six
#                    batches of 100 for each 500 jobs it submits.  Empty:
#                    no purge
#   XML=FILE         nodes of this hwloc topology's shape (its cores and
#                    GPUs) instead, sched-grove given it ([sched-grove]
#                    hwloc-xml: every node built with its sockets and NUMA
#                    domains); a scheduler named grove-fcfs-flat or
#                    grove-easy-flat runs the same with topology = flat
#   EXPORT=FILE      then time `grove flux-export` of the instance's history
#                    (every job of the soak inactive) to FILE.SCHED: prints
#                    `EXPORT sched seconds lines MB`; no purge then (the
#                    export reads every job)
#
# The stream (bench/flux/soak.py drives it from inside the instance):
# sizes from one core to 512 nodes, shared and exclusive, GPU jobs,
# jobs constrained to a set of ranks; run times of 10 ms to 2 s, time limits
# of 10 min; 10% cancelled (half while pending, half while running),
# urgency changes, jobs submitted held and released later, 2 ranks
# with a broker drained every tenth of the stream and undrained a twentieth later, and
# the scheduler module reloaded twice (at a third and two thirds) with
# its jobs running and pending.
#
# Prints, per scheduler: jobs/s over the whole soak (first submit to the
# last job inactive), broker RSS after 10% of the jobs ended and at the
# end (and their ratio), the jobs whose end was not the expected one
# (completed, or canceled for the cancelled; anything else is counted),
# and whether the views agree at the end (no allocation left in the
# scheduler's view, flux resource list's, or the job manager's; the same
# drained ranks), with what was kept at the two readings (the job
# manager's inactive jobs not yet purged, the scheduler's Lua heap) and
# what the module reported of itself (its thread's CPU seconds, allocs,
# annotation messages, passes, matches placed and not); then grove's
# throughput as a share of the ceiling's.
# A benchmark, not a test: figures go in bench/RESULTS.md.
set -u
. "$(dirname "$0")/lib.sh"
need_flux "$@"
NODES=${NODES:-16384}
JOBS=${JOBS:-100000}
SCHEDS=${SCHEDS:-"grove-fcfs grove-easy ceiling"}
SEED=${SEED:-1}
CEILING_ARGS=${CEILING_ARGS-window summary}
BROKERS=${BROKERS:-8}
work=$(mktemp -d /tmp/grove-soak.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
if [ -n "${XML:-}" ]; then
    "$GROVE" "$top/bench/topo_R.lua" "$XML" "$NODES" "$work/m" >/dev/null || die "topo_R failed"
    mv "$work/m.R.json" "$work/R.json"
    printf '[resource]\npath = "%s"\nnoverify = true\n[sched-grove]\nhwloc-xml = "%s"\n' \
        "$work/R.json" "$XML" > "$work/conf.toml"
else
    flux_R "$work" "$NODES"
fi
PURGE_AGE=${PURGE_AGE-60s}
[ -n "${EXPORT:-}" ] && PURGE_AGE=
[ -z "$PURGE_AGE" ] || printf '[job-manager]\ninactive-age-limit = "%s"\n' "$PURGE_AGE" >> "$work/conf.toml"
# The content store as flux-core sets it for a state directory it removes
# at exit (statedir-cleanup): no journal, no sync.  Nothing of the soak's
# store outlives it; the state directory is kept for the resource
# module's checkpoint of drains only.
printf '[content-sqlite]\njournal_mode = "OFF"\nsynchronous = "OFF"\n' >> "$work/conf.toml"

cat > "$work/inner.sh" <<'EOF'
set -e
sched=$1 build=$2 jobs=$3 seed=$4 nodes=$5 top=$6
flux module remove -f sched-simple 2>/dev/null || true
flux module reload -f resource monitor-force-up noverify
case $sched in
ceiling) mod=sched-ceiling; flux module load "$build/flux/sched-ceiling.so" $CEILING_ARGS ;;
grove-*) mod=sched-grove
         policy=${sched#grove-}; flat=
         case $policy in *-flat) policy=${policy%-flat}; flat=topology=flat ;; esac
         flux module load "$build/flux/sched-grove.so" queue-policy=$policy $flat ;;
esac
flux python "$top/bench/flux/soak.py" --jobs "$jobs" --seed "$seed" --nodes "$nodes" \
    --module "$mod" --path "$build/flux/$mod.so" \
    --args "$( [ "$mod" = sched-grove ] && echo queue-policy=$policy $flat || echo "$CEILING_ARGS")" \
    --purge-age "$PURGE_AGE"
if [ -n "$EXPORT" ] && [ "$mod" = sched-grove ]; then
    # the history of every job of the soak, all inactive now
    t0=$(date +%s.%N)
    "$build/grove" flux-export -q -o "$EXPORT.$sched"
    t1=$(date +%s.%N)
    echo "EXPORT $sched $(echo "$t1 - $t0" | bc) $(wc -l < "$EXPORT.$sched") $(du -m "$EXPORT.$sched" | cut -f1)"
fi
EOF

printf '%-12s %6s %7s %9s %9s %9s %6s %6s %s\n' scheduler nodes jobs jobs/s \
    rss10_MB rss_MB ratio wrong views
declare -A rate
for sched in $SCHEDS; do
    rm -rf "$work/state"; mkdir -p "$work/state"
    # a state directory: the resource module checkpoints drains there
    out=$(FLUX_SCHED_MODULE=none timeout -k 10 7200 "$FLUX" start --test-size="$BROKERS" \
        -o,--config-path="$work" -Sstatedir="$work/state" env EXPORT="${EXPORT:-}" PURGE_AGE="$PURGE_AGE" CEILING_ARGS="$CEILING_ARGS" bash "$work/inner.sh" "$sched" "$build" "$JOBS" "$SEED" \
        "$NODES" "$top" 2>"$work/err")
    echo "$out" | grep '^EXPORT' || true
    row=$(echo "$out" | grep '^SOAK ' | tail -n 1)
    if [ -z "$row" ]; then
        printf '%-12s %6s %7s   (failed: %s)\n' "$sched" "$NODES" "$JOBS" \
            "$(tail -n 1 "$work/err")"
        continue
    fi
    set -- $row
    rate[$sched]="${rate[$sched]:-} $2"
    printf '%-12s %6s %7s %9.1f %9s %9s %6s %6s %s\n' "$sched" "$NODES" "$JOBS" "$2" "$3" \
        "$4" "$5" "$6" "${*:7}"
    mem=$(echo "$out" | grep '^SOAKMEM' | tail -n 1)
    # what was kept at the two readings: the job manager's inactive jobs
    # not yet purged, the scheduler's Lua heap (kB)
    [ -z "$mem" ] || { set -- $mem; echo "  $sched kept: inactive jobs $2 then $3; Lua heap $4 then $5 kB"; }
    # what the module reported of itself over its three loads: its
    # thread's CPU (the scheduler's share of the machine), allocs, and
    # annotation messages
    used=$(echo "$out" | grep '^SOAKSCHED' | tail -n 1)
    [ -z "$used" ] || { set -- $used; echo "  $sched module: CPU $2 s ($(echo "scale=3; $2 * 1000 / $JOBS" | bc) ms a job), allocs $3, annotations $4, passes $5, matches $6 placed and $7 not"; }
done
# Each scheduler's throughput as a share of the ceiling's: over every run
# of each (the mean of its rates over the ceiling's mean; SCHEDS may name
# each more than once, interleaved, as a loaded machine's pace drifts
# between runs), and run by run in the order they came (the i-th run of
# each against the i-th of the ceiling)
mean() { echo "scale=6; ($(echo "$*" | sed 's/ /+/g')) / $#" | bc; }
for s in grove-fcfs grove-easy grove-fcfs-flat grove-easy-flat; do
    if [ -n "${rate[$s]:-}" ] && [ -n "${rate[ceiling]:-}" ]; then
        read -r -a g <<< "${rate[$s]}"
        read -r -a c <<< "${rate[ceiling]}"
        pairs=
        for ((i = 0; i < ${#g[@]} && i < ${#c[@]}; i++)); do
            pairs="$pairs $(echo "scale=3; ${g[i]} / ${c[i]}" | bc)"
        done
        echo "$s: $(echo "scale=3; $(mean "${g[@]}") / $(mean "${c[@]}")" | bc) of the ceiling's throughput" \
            "(${#g[@]} runs against ${#c[@]}; run by run:$pairs)"
    fi
done
