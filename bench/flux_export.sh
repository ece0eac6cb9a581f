#!/usr/bin/env bash
# `grove flux-export` on an instance that holds a long history: how long
# writing every inactive job's history takes, end to end of the command.
#
#   bench/flux_export.sh [--build DIR]
#
# Environment:
#   JOBS=100000   inactive jobs in the instance at the export
#   RUN=10000     of them, jobs that ran (the test execution, 10 ms each):
#                 submit, alloc, start, finish, free, clean in their
#                 eventlogs; the rest were submitted held and cancelled
#                 (submit, priority, exception, clean: the quick way to
#                 a deep history, ingest bounds how fast jobs can run)
#   NODES=1024    nodes of the instance's R
#
# One broker, sched-grove as the scheduler, every rank forced up.  Prints
# the time to build the history, then `EXPORT seconds lines MB` for the
# export and `CHECK seconds` for the export with --check (the file read
# back as grove sim --history reads it).  A benchmark, not a test: the
# figures go in bench/RESULTS.md.
set -u
. "$(dirname "$0")/lib.sh"
need_flux "$@"
JOBS=${JOBS:-100000}
RUN=${RUN:-10000}
NODES=${NODES:-1024}
work=$(mktemp -d /tmp/grove-export.XXXXXX)
trap '[ -n "${KEEP:-}" ] && echo "kept $work" || rm -rf "$work"' EXIT
flux_R "$work" "$NODES"

cat > "$work/inner.sh" <<'EOF'
set -e
build=$1 jobs=$2 run=$3 work=$4
flux module remove -f sched-simple 2>/dev/null || true
flux module reload -f resource monitor-force-up noverify
flux module load "$build/flux/sched-grove.so"
t0=$(date +%s.%N)
flux submit --cc=1-$run --quiet --setattr=system.exec.test.run_duration=0.01s -n1 true
flux queue drain
if [ "$jobs" -gt "$run" ]; then
    flux submit --cc=1-$((jobs - run)) --quiet --urgency=hold -n1 true
    flux cancel --all --states=pending --quiet
fi
# until no job is active
while [ "$(flux jobs -n -o '{id}' | wc -l)" -gt 0 ]; do sleep 1; done
t1=$(date +%s.%N)
echo "HISTORY $(echo "$t1 - $t0" | bc) $(flux jobs -a -n -c 0 -o '{id}' | wc -l)"
# settled: the job manager's eventlog updates of the last jobs (90,000
# cancels post hundreds of thousands) reach the KVS for a minute or more
# after the jobs are inactive, and a lookup waits behind them; a site
# exports an instance at rest
t0=$(date +%s.%N)
while :; do
    s0=$(date +%s.%N); flux kvs get resource.R > /dev/null; s1=$(date +%s.%N)
    [ "$(echo "$s1 - $s0 < 0.2" | bc)" = 1 ] && break
    sleep 2
done
t1=$(date +%s.%N)
echo "SETTLE $(echo "$t1 - $t0" | bc)"
t0=$(date +%s.%N)
"$build/grove" flux-export -q -o "$work/history.jsonl"
t1=$(date +%s.%N)
echo "EXPORT $(echo "$t1 - $t0" | bc) $(wc -l < "$work/history.jsonl") $(du -m "$work/history.jsonl" | cut -f1)"
t0=$(date +%s.%N)
"$build/grove" flux-export -q --check -o "$work/history2.jsonl"
t1=$(date +%s.%N)
echo "CHECK $(echo "$t1 - $t0" | bc)"
EOF

out=$(FLUX_SCHED_MODULE=none timeout -k 10 3600 "$FLUX" start -o,--config-path="$work" \
    bash "$work/inner.sh" "$build" "$JOBS" "$RUN" "$work" 2>"$work/err")
if ! echo "$out" | grep -q '^EXPORT'; then
    echo "flux_export: failed: $(tail -n 3 "$work/err")" >&2
    exit 1
fi
echo "$out" | awk -v jobs="$JOBS" -v run="$RUN" -v nodes="$NODES" '
/^HISTORY/ { printf "history: %d jobs (%d ran, %d cancelled while held) on %d nodes, built in %.1f s (%d listed by flux jobs -a)\n", jobs, run, jobs - run, nodes, $2, $3 }
/^SETTLE/  { printf "the KVS at rest after %.1f s more\n", $2 }
/^EXPORT/  { printf "grove flux-export: %.2f s, %d lines, %d MB\n", $2, $3, $4 }
/^CHECK/   { printf "grove flux-export --check: %.2f s\n", $2 }'
