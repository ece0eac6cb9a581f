#!/usr/bin/env bash
# side_by_side.sh: `grove query` end to end, and beside it the reference
# engine when the environment names one, on the same graphs and command
# files; whole-process figures from GNU time, engines interleaved.
#
#   bench/side_by_side.sh [WORKDIR]
#
# Environment:
#   GROVE      the grove executable (default: build/grove of this tree)
#   REF_RQ     the reference engine's resource-query binary; unset: Grove only
#   REF_LD     LD_LIBRARY_PATH for it
#   REF_NICE   nice level for the reference runs (default 0)
#   SIZES      node counts (default "1024 4096 16384")
#   REPS       repetitions of every run (default 3; the report takes medians)
#   THRU       one-core jobs in the long stream (default 5000); the short
#              stream has 100, and per-match cost is the difference / 4900
#   K          jobs of each kind in the mixed file (default 10)
#   SCENARIOS  any of load mixed whole thru memory (default all); "inputs":
#              write the inputs and stop
#
# Graphs (GRUG): cluster > rack[N/32] > node[32] > socket[2] > {core[22],
# gpu[2], memory[1] of 128 GB}, 53 vertices a node.  Jobspecs, all for 3600
# s: (a) node[1, exclusive] > slot > core[1]; (b) slot > core[1]; (c)
# node[4] > socket[2] > slot > {core[4], gpu[1]} (version 9999); (d) the
# whole machine, node[N, exclusive] > socket[2] > slot > {core[22], gpu[2]}.
# Command files: load (quit), mixed (K x (a), (b), (c)), whole ((d) once),
# thru100 and thruHI (100 or THRU x (b)).  Every run uses
#   -L GRAPH -f grug -F simple -e -d -P first  < COMMANDS
# The memory scenario (Grove only) feeds THRU x (b), then cancels them
# all, through a pipe, and reads the resident set of the running process
# after the load, after the first match, after all the matches and after
# the cancels.
#
# Output: WORKDIR/out/<size>/<engine>/<scenario>.<rep>.{time,out,err,load}
# and the report (bench/side_by_side_report.lua) on standard output.
set -uo pipefail

. "$(dirname "$0")/lib.sh"
defaults REF_RQ= REF_LD= REF_NICE=0 SIZES="1024 4096 16384" REPS=3 THRU=5000 K=10 \
    SCENARIOS="load mixed whole thru memory" TIME_BIN=/usr/bin/time
WORKDIR="${1:-${WORKDIR:-$top/build/side_by_side}}"

[ -x "$TIME_BIN" ] || die "GNU time is needed at $TIME_BIN (package time)"
need_grove
[ -z "$REF_RQ" ] || [ -x "$REF_RQ" ] || die "REF_RQ=$REF_RQ is not executable"
mkdir -p "$WORKDIR/in" "$WORKDIR/out" || die "cannot create $WORKDIR"
IN="$WORKDIR/in"
OUT="$WORKDIR/out"
engines="grove"
[ -n "$REF_RQ" ] && engines="ref grove"

# ---- inputs ------------------------------------------------------------------

grug() { # grug NODES
    local racks=$(($1 / 32))
    cat <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="root" for="node" attr.name="root" attr.type="int"><default>0</default></key>
  <key id="type" for="node" attr.name="type" attr.type="string"/>
  <key id="basename" for="node" attr.name="basename" attr.type="string"/>
  <key id="unit" for="node" attr.name="unit" attr.type="string"/>
  <key id="size" for="node" attr.name="size" attr.type="long"><default>1</default></key>
  <key id="subsystem" for="node" attr.name="subsystem" attr.type="string"><default>containment</default></key>
  <key id="e_subsystem" for="edge" attr.name="e_subsystem" attr.type="string"><default>containment</default></key>
  <key id="relation" for="edge" attr.name="relation" attr.type="string"><default>contains</default></key>
  <key id="rrelation" for="edge" attr.name="rrelation" attr.type="string"><default>in</default></key>
  <key id="id_scope" for="edge" attr.name="id_scope" attr.type="int"><default>0</default></key>
  <key id="id_start" for="edge" attr.name="id_start" attr.type="int"><default>0</default></key>
  <key id="id_stride" for="edge" attr.name="id_stride" attr.type="int"><default>1</default></key>
  <key id="gen_method" for="edge" attr.name="gen_method" attr.type="string"><default>MULTIPLY</default></key>
  <key id="multi_scale" for="edge" attr.name="multi_scale" attr.type="int"><default>1</default></key>
  <key id="as_tgt_subsystem" for="edge" attr.name="as_tgt_subsystem" attr.type="string"><default>containment</default></key>
  <key id="as_tgt_uplvl" for="edge" attr.name="as_tgt_uplvl" attr.type="int"><default>1</default></key>
  <key id="as_src_uplvl" for="edge" attr.name="as_src_uplvl" attr.type="int"><default>1</default></key>
  <graph id="bench$1" edgedefault="directed">
    <node id="cluster"><data key="root">1</data><data key="type">cluster</data><data key="basename">bench</data></node>
    <node id="rack"><data key="type">rack</data><data key="basename">rack</data></node>
    <node id="node"><data key="type">node</data><data key="basename">node</data></node>
    <node id="socket"><data key="type">socket</data><data key="basename">socket</data></node>
    <node id="core"><data key="type">core</data><data key="basename">core</data></node>
    <node id="gpu"><data key="type">gpu</data><data key="basename">gpu</data></node>
    <node id="memory"><data key="type">memory</data><data key="basename">memory</data><data key="size">128</data><data key="unit">GB</data></node>
    <edge id="e1" source="cluster" target="rack"><data key="multi_scale">$racks</data></edge>
    <edge id="e2" source="rack" target="node"><data key="id_scope">1</data><data key="multi_scale">32</data></edge>
    <edge id="e3" source="node" target="socket"><data key="multi_scale">2</data></edge>
    <edge id="e4" source="socket" target="core"><data key="id_scope">1</data><data key="multi_scale">22</data></edge>
    <edge id="e5" source="socket" target="gpu"><data key="id_scope">1</data><data key="multi_scale">2</data></edge>
    <edge id="e6" source="socket" target="memory"><data key="id_scope">1</data><data key="multi_scale">1</data></edge>
  </graph>
</graphml>
EOF
}

TAIL='tasks:
  - command: [ "app" ]
    slot: task
    count:
      per_slot: 1
attributes:
  system:
    duration: 3600'

jobspec() { # jobspec VERSION RESOURCES-YAML
    printf 'version: %s\nresources:\n%s\n%s\n' "$1" "$2" "$TAIL"
}

socket_slot() { # the slot of (c) and (d): socket[2] > slot > {core[C], gpu[G]}
    printf '    with:\n      - type: socket\n        count: 2\n        with:\n'
    printf '          - type: slot\n            count: 1\n            label: task\n'
    printf '            with:\n              - type: core\n                count: %s\n' "$1"
    printf '              - type: gpu\n                count: %s' "$2"
}

repeat_line() { local i; for ((i = 0; i < $1; i++)); do echo "$2"; done; }

make_inputs() {
    jobspec 1 '  - type: node
    count: 1
    exclusive: true
    with:
      - type: slot
        count: 1
        label: task
        with:
          - type: core
            count: 1' > "$IN/a.yaml"
    jobspec 1 '  - type: slot
    count: 1
    label: task
    with:
      - type: core
        count: 1' > "$IN/b.yaml"
    jobspec 9999 "  - type: node
    count: 4
$(socket_slot 4 1)" > "$IN/c.yaml"
    echo quit > "$IN/load.in"
    { repeat_line "$K" "match allocate $IN/a.yaml"
      repeat_line "$K" "match allocate $IN/b.yaml"
      repeat_line "$K" "match allocate $IN/c.yaml"
      echo quit; } > "$IN/mixed.in"
    { repeat_line 100 "match allocate $IN/b.yaml"; echo quit; } > "$IN/thru100.in"
    { repeat_line "$THRU" "match allocate $IN/b.yaml"; echo quit; } > "$IN/thruhi.in"
    local n
    for n in $SIZES; do
        [ -s "$IN/g$n.graphml" ] || grug "$n" > "$IN/g$n.graphml"
        jobspec 9999 "  - type: node
    count: $n
    exclusive: true
$(socket_slot 22 2)" > "$IN/d$n.yaml"
        { echo "match allocate $IN/d$n.yaml"; echo quit; } > "$IN/whole$n.in"
    done
}

# ---- runs --------------------------------------------------------------------

# run ENGINE SIZE SCENARIO REP: one whole process under GNU time.
run() {
    local eng=$1 n=$2 scen=$3 rep=$4 cmds
    case $scen in
        whole) cmds="$IN/whole$n.in" ;;
        *) cmds="$IN/$scen.in" ;;
    esac
    local base="$OUT/$n/$eng/$scen.$rep"
    mkdir -p "$OUT/$n/$eng"
    local opts=(-L "$IN/g$n.graphml" -f grug -F simple -e -d -P first)
    local cmd
    if [ "$eng" = ref ]; then
        cmd=(nice -n "$REF_NICE" env LD_LIBRARY_PATH="$REF_LD" "$REF_RQ" "${opts[@]}")
    else
        cmd=("$GROVE" query "${opts[@]}")
    fi
    echo "${cmd[*]} < $cmds" > "$base.cmd"
    local t0 t1
    t0=$(date +%s%N)
    "$TIME_BIN" -v -o "$base.time" "${cmd[@]}" < "$cmds" > "$base.out" 2> "$base.err"
    t1=$(date +%s%N)
    echo $((t1 - t0)) > "$base.wall_ns"
    cut -d' ' -f1-3 /proc/loadavg > "$base.load"
}

rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# wait_for FILE PATTERN COUNT: until FILE has COUNT lines matching PATTERN.
wait_for() {
    local i
    for ((i = 0; i < 36000; i++)); do
        [ "$(grep -c -- "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
        sleep 0.05
    done
    return 1
}

# memory SIZE REP: resident set of a live Grove session after the load,
# after THRU one-core jobs and after cancelling them all.
memory() {
    local n=$1 rep=$2 base="$OUT/$1/grove/memory.$2"
    mkdir -p "$OUT/$n/grove"
    local fifo="$base.fifo"
    rm -f "$fifo"
    mkfifo "$fifo"
    "$GROVE" query -L "$IN/g$n.graphml" -f grug -F simple -e -d -P first < "$fifo" \
        > "$base.out" 2> "$base.err" &
    local pid=$!
    exec 3> "$fifo"
    wait_for "$base.out" '^INFO: Graph Load Time' 1
    local loaded; loaded=$(rss_kb $pid)
    # the first match builds what every match uses (the matcher's ranks):
    # the resident set after it is the base of the per-job figure
    echo "match allocate $IN/b.yaml" >&3
    wait_for "$base.out" '^INFO: JOBID=' 1
    local first; first=$(rss_kb $pid)
    repeat_line "$((THRU - 1))" "match allocate $IN/b.yaml" >&3
    wait_for "$base.out" '^INFO: JOBID=' "$THRU"
    local held; held=$(rss_kb $pid)
    local i
    for ((i = 1; i <= THRU; i++)); do echo "cancel $i stats"; done >&3
    wait_for "$base.out" 'CANCEL POSTORDER' "$THRU"
    local freed; freed=$(rss_kb $pid)
    echo quit >&3
    exec 3>&-
    wait $pid
    rm -f "$fifo"
    echo "loaded_kb=$loaded first_kb=$first held_kb=$held cancelled_kb=$freed jobs=$THRU" \
        > "$base.rss"
    cut -d' ' -f1-3 /proc/loadavg > "$base.load"
}

say "inputs in $IN (sizes $SIZES, THRU $THRU, K $K, engines: $engines)"
make_inputs
[ "$SCENARIOS" = inputs ] && exit 0
uptime > "$WORKDIR/uptime.start"
for n in $SIZES; do
    for rep in $(seq 1 "$REPS"); do
        for scen in $SCENARIOS; do
            case $scen in
                memory) say "N=$n rep $rep memory"; memory "$n" "$rep" ;;
                thru)
                    for eng in $engines; do
                        say "N=$n rep $rep thru $eng"
                        run "$eng" "$n" thru100 "$rep"
                        run "$eng" "$n" thruhi "$rep"
                    done ;;
                *)
                    for eng in $engines; do
                        say "N=$n rep $rep $scen $eng"
                        run "$eng" "$n" "$scen" "$rep"
                    done ;;
            esac
        done
    done
done
uptime > "$WORKDIR/uptime.end"
lua5.4 "$here/side_by_side_report.lua" "$WORKDIR" "$SIZES" "$THRU" "$engines"
