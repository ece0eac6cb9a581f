#!/bin/sh
# match_instructions.sh POLICY STREAM: the median of the machine
# instructions of grove_match over the last N (10) of FILL (20) + N steady
# matches of bench/match_instructions.lua, counted by callgrind (one dump
# per match).  Run from the top of a build tree.  STAT=mean prints the
# mean instead (a mixed stream, whose matches are of several shapes).
#   bench/match_instructions.sh locality:c c; bench/match_instructions.sh locality c
pol=$1 st=$2 fill=${FILL:-20} n=${N:-10}
d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT
valgrind --tool=callgrind --collect-atstart=no --toggle-collect=grove_match \
  --dump-after=grove_match --callgrind-out-file="$d/cg.%p" \
  build/grove bench/match_instructions.lua "$pol" "$st" "$fill" "$n" >/dev/null 2>"$d/err" \
  || { tail "$d/err"; exit 1; }
for f in $(ls -v "$d"/cg.*.*); do sed -n 's/^summary: //p' "$f"; done | tail -n "$n" | sort -n |
  awk -v stat="${STAT:-median}" '{a[NR] = $1; t += $1}
    END {if (stat == "mean") printf "%d\n", t / NR; else print a[int((NR + 1) / 2)]}'
