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
#   need_flux [--build DIR] the Flux benchmarks' start: FLUX (flux-core's
#                           flux command, under FLUX_PREFIX or /opt/flux)
#                           and build (the build tree, absolute; DIR or
#                           build), or exit 2 when flux-core is not there
#   flux_R DIR NODES [ARGS]  DIR/R.json of NODES nodes (44 cores and 4 GPUs
#                           each, hosts node[0-...]; ARGS more of `flux R
#                           encode`'s) and DIR/conf.toml naming it
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

need_flux() {
    build=build
    [ "${1:-}" = "--build" ] && build=$2
    case $build in /*) ;; *) build=$top/$build ;; esac
    FLUX=${FLUX_PREFIX:-/opt/flux}/bin/flux
    if [ ! -x "$FLUX" ]; then
        echo "$(basename "$0"): flux-core not found under ${FLUX_PREFIX:-/opt/flux}" \
            "(set FLUX_PREFIX)" >&2
        exit 2
    fi
}

flux_R() {
    local dir=$1 nodes=$2
    shift 2
    "$FLUX" R encode --ranks=0-$((nodes - 1)) --hosts="node[0-$((nodes - 1))]" \
        --cores=0-43 --gpus=0-3 "$@" > "$dir/R.json"
    printf '[resource]\npath = "%s"\nnoverify = true\n' "$dir/R.json" > "$dir/conf.toml"
}
