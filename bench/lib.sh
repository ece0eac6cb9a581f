# bench/lib.sh: what the shell benchmarks share.  A script sources it
# first, after `set -uo pipefail`:
#
#   . "$(dirname "$0")/lib.sh"
#
# It sets here (this folder), top (the tree) and GROVE (the grove
# executable: from the environment, else build/grove of this tree), and
# defines:
#   defaults NAME=VALUE...  each NAME keeps its value from the environment
#                           when it has one (not empty), else takes VALUE:
#                           the defaults of the script's "Environment:" list
#   die MESSAGE             "SCRIPT: MESSAGE" on standard error, exit 1
#   say MESSAGE             MESSAGE on standard error after the time and
#                           the machine's load (what a long run shows)
#   need_grove              die unless GROVE is an executable
#
# It must not hold any benchmark's inputs, runs or figures.

here="$(cd "$(dirname "$0")" && pwd)"
top="$(cd "$here/.." && pwd)"
GROVE="${GROVE:-$top/build/grove}"

defaults() {
    local kv name
    for kv in "$@"; do
        name=${kv%%=*}
        [ -n "${!name:-}" ] || printf -v "$name" '%s' "${kv#*=}"
    done
}

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

say() { echo "[$(date +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)] $*" >&2; }

need_grove() { [ -x "$GROVE" ] || die "no grove executable at $GROVE (make first)"; }
