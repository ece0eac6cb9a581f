#!/usr/bin/env bash
# stream_cpu.sh: the CPU a job in a stream of `grove query` costs, the
# whole process's, without the graph's load in the figure.  A session
# reads its commands from a fifo; its CPU (user and kernel, the first
# field of /proc/PID/schedstat, nanoseconds) is read once "Graph Load
# Time" is out and again when the last job's output is; the stream's
# lines are written in one go, then quit.
#
#   bench/stream_cpu.sh [WORKDIR]
#
# Environment:
#   GROVE    the grove executable (default: build/grove of this tree);
#            several, separated by ":", run interleaved (before and after)
#   SIZE     nodes of the GRUG graph (default 16384; bench/side_by_side.sh's)
#   JOBS     the streams' lengths (default "1 100 5000 50000"), run in
#            this order in every round
#   ROUNDS   rounds (default 3)
#
# Every session is
#   grove query -L gSIZE.graphml -f grug -F simple -e -d -P first < FIFO
# fed N x "match allocate b.yaml" (b: slot > core[1] of
# bench/side_by_side.sh), then quit.  Printed for every round and
# executable: the CPU after the load of every stream (ms), and a job's CPU
# as the difference of each stream's and the shortest stream's over the
# jobs between them (us): the first match's one-time cost drops out.
set -uo pipefail

. "$(dirname "$0")/lib.sh"
defaults SIZE=16384 JOBS="1 100 5000 50000" ROUNDS=3
WORKDIR="${1:-${WORKDIR:-$top/build/stream_cpu}}"

mkdir -p "$WORKDIR" || die "cannot create $WORKDIR"
IFS=: read -r -a groves <<< "$GROVE"
for g in "${groves[@]}"; do [ -x "$g" ] || die "no grove executable at $g"; done
GROVE="${groves[0]}" SIZES="$SIZE" SCENARIOS=inputs "$here/side_by_side.sh" "$WORKDIR" ||
    die "no inputs"
IN="$WORKDIR/in"

cpu_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }

# wait_for FILE LINE: until FILE's last 4 kB hold LINE (the output's
# tail only: grepping the whole output would take the machine's CPU).
wait_for() {
    local i
    for ((i = 0; i < 60000; i++)); do
        tail -c 4096 "$1" 2>/dev/null | grep -qx -- "$2" && return 0
        sleep 0.02
    done
    return 1
}

# session GROVE N OUT: prints the CPU (ns) of the session after its load
# up to its N-th job's output.
session() {
    local fifo="$WORKDIR/fifo" out=$3
    rm -f "$fifo"
    mkfifo "$fifo" || die "mkfifo $fifo"
    "$1" query -L "$IN/g$SIZE.graphml" -f grug -F simple -e -d -P first < "$fifo" > "$out" 2>&1 &
    local pid=$!
    exec 3> "$fifo"
    wait_for "$out" 'INFO: Graph Load Time: .*' || die "no load in $out"
    local c0; c0=$(cpu_ns $pid)
    local i line="match allocate $IN/b.yaml"
    for ((i = 0; i < $2; i++)); do echo "$line"; done >&3
    wait_for "$out" "INFO: JOBID=$2" || die "not $2 jobs in $out"
    local c1; c1=$(cpu_ns $pid)
    echo quit >&3
    exec 3>&-
    wait $pid
    rm -f "$fifo"
    echo $((c1 - c0))
}

read -r -a jobs <<< "$JOBS"
lo=${jobs[0]}
for ((r = 1; r <= ROUNDS; r++)); do
    for g in "${groves[@]}"; do
        declare -A cpu=()
        for n in "${jobs[@]}"; do
            say "round $r $g $n jobs"
            cpu[$n]=$(session "$g" "$n" "$WORKDIR/out.$n") || exit 1
        done
        line="round $r $g load $(cut -d' ' -f1-3 /proc/loadavg) |"
        for n in "${jobs[@]}"; do
            line+=" $n: $(awk -v c="${cpu[$n]}" 'BEGIN { printf "%.1f ms", c / 1e6 }')"
        done
        line+=" | a job:"
        for n in "${jobs[@]}"; do
            [ "$n" = "$lo" ] && continue
            line+=" $n-$lo $(awk -v a="${cpu[$n]}" -v b="${cpu[$lo]}" -v k=$((n - lo)) \
                'BEGIN { printf "%.2f us", (a - b) / k / 1e3 }')"
        done
        echo "$line"
        unset cpu
    done
done
