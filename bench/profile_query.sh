#!/usr/bin/env bash
# profile_query.sh: where a job's time goes in `grove query`, step by step:
# the command loop (reading the line, splitting it, flushing), reading the
# jobspec (the file, then the parsed jobspec kept for its text), the match,
# its record, and the text out (the writer's selection, the INFO block).
#
#   bench/profile_query.sh [WORKDIR]
#
# Environment:
#   GROVE    the grove executable (default: build/grove of this tree)
#   SIZES    node counts (default "1024 16384"; multiples of 32)
#   KINDS    any of a b c stream (default all): the jobspecs of
#            bench/side_by_side.sh, (a) node[1, exclusive] > slot > core[1],
#            (b) slot > core[1], (c) node[4] > socket[2] > slot > {core[4],
#            gpu[1]}; "stream" is 5,000 (b)
#   BASE, K  a, b and c: runs of BASE and BASE + K jobs (default 100, 400:
#            (c) holds 512 jobs at 1,024 nodes)
#   STREAM   jobs of the stream (default 5000; its base run has BASE)
#   REPS     timed repetitions of each run (default 5; medians)
#   PERF     0: no perf runs (default 1: perf record of the stream)
#   PERF_JOBS  jobs of the perf stream (default 20000: enough samples)
#
# Every run is `grove query -L gN.graphml -f grug -F simple -d -P first`
# with its command file on standard input and results to /dev/null.  A
# job's figures are differences between the two runs of a kind divided by
# the jobs between them, so the graph's load and the process's start and
# end drop out:
# - instructions (callgrind, one run each: they do not vary with the load
#   of the machine): the whole process, then by step, from the inclusive
#   counts of the functions of bindings/l_query.c that do them
#   (read_text, jobspec_for, grovel_match_builtin, grovep_match_record,
#   print_match, grove_writer_print_job, l_query_run); "matcher" is
#   grove_match itself, the figure the whole command is held against;
# - CPU time (perf stat task-clock: user and kernel, REPS pairs of runs,
#   the median difference), and the median of what -e prints for the
#   matches of the longer run (wall, each command end to end);
# - perf record (cpu-clock, call graphs) of a stream of PERF_JOBS (b):
#   the share of the process's samples in each step (inclusive, user and
#   kernel time together), and microseconds a job from them: the share
#   times the process's CPU time (the samples' nanoseconds, scaled up by
#   the samples perf lost, printed as "lost") over the jobs.  The whole
#   run is sampled, the graph's load too: the steps are functions of the
#   command loop only, so the load's samples fall in none of them.
# Output: a table on standard output; raw files in WORKDIR (default
# build/profile_query).
set -uo pipefail

. "$(dirname "$0")/lib.sh"
defaults SIZES="1024 16384" KINDS="a b c stream" BASE=100 K=400 STREAM=5000 REPS=5 PERF=1 \
    PERF_JOBS=20000
WORKDIR="${1:-${WORKDIR:-$top/build/profile_query}}"

need_grove
command -v perf > /dev/null || die "perf is needed (package linux-perf)"
command -v valgrind > /dev/null || die "valgrind is needed"
mkdir -p "$WORKDIR" || die "cannot create $WORKDIR"
IN="$WORKDIR/in"
SIZES="$SIZES" SCENARIOS=inputs "$here/side_by_side.sh" "$WORKDIR" || die "no inputs"

jobs_file() { # jobs_file KIND COUNT -> path of a command file of COUNT jobs
    local spec=$1 f="$IN/$1$2.in" i
    [ "$spec" = stream ] && spec=b
    if [ ! -s "$f" ]; then
        { for ((i = 0; i < $2; i++)); do echo "match allocate $IN/$spec.yaml"; done
          echo quit; } > "$f"
    fi
    echo "$f"
}

grove_cmd() { echo "$GROVE" query -L "$IN/g$1.graphml" -f grug -F simple -d -P first; }

# The inclusive instructions of the functions named, from a callgrind file.
FUNCS="l_query_run read_text jobspec_for grovel_match_builtin grove_match grovep_match_record print_match grove_writer_print_job"
counts() { # counts CALLGRIND_FILE -> "total f1 f2 ..."
    callgrind_annotate --inclusive=yes --threshold=100 "$1" 2> /dev/null | awk -v funcs="$FUNCS" '
        BEGIN { n = split(funcs, f, " "); for (i = 1; i <= n; i++) c[f[i]] = 0 }
        /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
        { for (i = 1; i <= n; i++) if (index($0, ":" f[i] " [") && !seen[f[i]]++) {
              v = $1; gsub(",", "", v); c[f[i]] = v } }
        END { printf "%s", total; for (i = 1; i <= n; i++) printf " %s", c[f[i]]; print "" }'
}

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# One timed run with -e: CPU milliseconds of the process (perf stat
# task-clock, user and kernel) and the median ELAPSED of its matches in
# microseconds (wall, each command end to end, as -e prints it).
cpu() { # cpu SIZE FILE -> "ms elapsed_us"
    local t="$WORKDIR/stat.$$" o="$WORKDIR/out.$$"
    perf stat -x, -e task-clock -o "$t" $(grove_cmd "$1") -e < "$2" > "$o" 2>&1
    local ms; ms=$(awk -F, '/task-clock/ { print $1 }' "$t")
    local el; el=$(sed -n 's/^INFO: ELAPSED=//p' "$o" | median)
    rm -f "$t" "$o"
    echo "$ms $(awk -v e="$el" 'BEGIN { print e * 1e6 }')"
}

printf '%-6s %-6s %6s | %8s %8s %8s %8s %8s %8s %8s | %8s %6s | %7s %7s\n' \
    nodes kind jobs "instr" loop jobspec match record writer block matcher ratio \
    "us cpu" "us -e"
for n in $SIZES; do
    for kind in $KINDS; do
        if [ "$kind" = stream ]; then lo=$BASE; hi=$STREAM; else lo=$BASE; hi=$((BASE + K)); fi
        flo=$(jobs_file "$kind" "$lo")
        fhi=$(jobs_file "$kind" "$hi")
        say "N=$n $kind: callgrind"
        for f in "$flo" "$fhi"; do
            cg="$WORKDIR/cg.$n.$(basename "$f" .in)"
            [ -s "$cg" ] || valgrind --tool=callgrind --callgrind-out-file="$cg" \
                $(grove_cmd "$n") < "$f" > /dev/null 2>&1
        done
        read -r -a A <<< "$(counts "$WORKDIR/cg.$n.$(basename "$flo" .in)")"
        read -r -a B <<< "$(counts "$WORKDIR/cg.$n.$(basename "$fhi" .in)")"
        say "N=$n $kind: timed runs"
        dms=(); els=()
        for ((r = 0; r < REPS; r++)); do
            read -r ml _ <<< "$(cpu "$n" "$flo")"
            read -r mh e <<< "$(cpu "$n" "$fhi")"
            dms+=("$(awk -v a="$ml" -v b="$mh" 'BEGIN { print b - a }')"); els+=("$e")
        done
        dm=$(printf '%s\n' "${dms[@]}" | median); el=$(printf '%s\n' "${els[@]}" | median)
        awk -v n="$n" -v kind="$kind" -v d="$((hi - lo))" -v a="${A[*]}" -v b="${B[*]}" \
            -v dm="$dm" -v el="$el" 'BEGIN {
            split(a, x, " "); split(b, y, " ")
            for (i = 1; i <= 9; i++) v[i] = (y[i] - x[i]) / d
            # 1 total 2 l_query_run 3 read_text 4 jobspec_for 5 match_builtin
            # 6 grove_match 7 record 8 print_match 9 writer
            loop = v[2] - v[3] - v[4] - v[5] - v[8]
            printf "%-6s %-6s %6d | %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f %8.0f | %8.0f %6.2f | %7.1f %7.1f\n",
                n, kind, d, v[1], loop, v[3] + v[4], v[5] - v[7], v[7], v[9], v[8] - v[9],
                v[6], v[1] / v[6], dm / d * 1e3, el
        }'
    done
done

[ "$PERF" = 1 ] || exit 0
echo
echo "perf record -e cpu-clock -F 20000 --call-graph dwarf, $PERF_JOBS x (b): microseconds a job"
printf '%-6s | %7s %7s %7s %7s %7s %7s %7s | %7s %6s\n' nodes loop-all jobspec match record writer block rest \
    matcher lost
for n in $SIZES; do
    f=$(jobs_file stream "$PERF_JOBS")
    pd="$WORKDIR/perf.$n.data"
    say "N=$n perf"
    perf record -q -e cpu-clock -F 20000 --call-graph dwarf,16384 -o "$pd" \
        $(grove_cmd "$n") < "$f" > /dev/null 2> "$WORKDIR/perf.$n.err" || { cat "$WORKDIR/perf.$n.err" >&2; continue; }
    # The samples recorded and lost: the event count (cpu-clock: the
    # nanoseconds of the samples recorded) scaled by all / recorded is
    # the process's CPU time.
    samples=$(perf report -i "$pd" --stats 2> /dev/null | awk '/SAMPLE events:/ && !/LOST/ { print $3; exit }')
    # Samples whose call chain passes through each step (children:
    # inclusive), inlined frames folded into their function (with them,
    # one function shows as several rows).  The lines read are
    # "  31.06%  0.00%  [.] l_query_run"; the header's "# Event count
    # (approx.): N" and "# Total Lost Samples: N".
    perf report -i "$pd" --no-inline --children --sort sym --stdio -g none 2> /dev/null |
        awk -v jobs="$PERF_JOBS" -v n="$n" -v funcs="$FUNCS" -v samples="${samples:-0}" '
        BEGIN { k = split(funcs, f, " ") }
        /^# Event count/ { events = $NF }
        /^# Total Lost Samples:/ { lost = $NF }
        /^ +[0-9.]+% +[0-9.]+% / {
            for (i = 1; i <= k; i++) if ($NF == f[i] && !(f[i] in p)) { v = $1; sub("%", "", v); p[f[i]] = v } }
        END {
            if (!events || !samples) { printf "%-6s | no samples\n", n; exit }
            ns = events * (samples + lost) / samples
            us = ns / 1e3 / jobs / 100   # microseconds a job per percent
            loop = p["l_query_run"]; js = p["read_text"] + p["jobspec_for"]
            m = p["grovel_match_builtin"] - p["grovep_match_record"]
            printf "%-6s | %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f | %7.2f %5.1f%%\n", n, loop * us,
                js * us, m * us, p["grovep_match_record"] * us, p["grove_writer_print_job"] * us,
                (p["print_match"] - p["grove_writer_print_job"]) * us,
                (loop - js - p["grovel_match_builtin"] - p["print_match"]) * us,
                p["grove_match"] * us, 100 * lost / (samples + lost)
        }'
done
