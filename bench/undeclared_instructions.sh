#!/bin/sh
# undeclared_instructions.sh [STREAM...]: the machine instructions of a
# match (bench/match_instructions.sh: callgrind, 20 fill + N steady
# matches at 4,096 nodes) of each pair of bench/bench_undeclared.lua, the
# Lua policy written without declarations against the nearest C policy,
# on streams b (one core), a (one whole node) and m (a, b and c in turn:
# the mean of N = 30 matches).  Run from the top of a build tree.
#   bench/undeclared_instructions.sh; bench/undeclared_instructions.sh m
dir=$(dirname "$0")
p=$dir/policies
not_degraded='{"properties": ["^degraded"]}'
one() { # NAME STREAM C-POLICY LUA-POLICY [DEGRADED [CONSTRAINT]]
  stat=median n=10
  [ "$2" = m ] && stat=mean n=30
  c=$(STAT=$stat N=$n DEGRADED=$5 CONSTRAINT=$6 "$dir/match_instructions.sh" "$3" "$2") || exit 1
  l=$(STAT=$stat N=$n DEGRADED=$5 "$dir/match_instructions.sh" "$4" "$2") || exit 1
  awk -v name="$1" -v s="$2" -v c="$c" -v l="$l" \
    'BEGIN {printf "%-7s %s  C %10d  Lua %10d  Lua/C %.2f\n", name, s, c, l, l / c}'
}
for s in ${*:-b a m}; do
  one spread "$s" spread:c "$p/plain_spread.lua=spread"
  one gpu "$s" gpu:c "$p/plain_gpu.lua=gpu"
  one last "$s" "$p/order_last.lua=first" "$p/plain_last.lua=first" 16
  one prune "$s" spread:c "$p/prune_degraded.lua=spread" 16 "$not_degraded"
done
