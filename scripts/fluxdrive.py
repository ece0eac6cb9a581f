# What the drivers run with `flux python` inside an instance share
# (bench/flux/deep.py, bench/flux/soak.py, scripts/flux-replay-workload.py):
# the command line and the handle they start with, the broker's resident memory, job-list's counts by state, a weighted
# draw of the next job's shape, and a flux command that stops the driver
# when it fails.
import argparse
import random
import subprocess
import sys

import flux


def start(jobs, nodes, *more):
    """A driver's start: its command line (--jobs and --nodes with these
    defaults, --seed 1 by default, then more: (flag, {argparse keywords})
    pairs), a random.Random of the seed, and a handle on the instance."""
    p = argparse.ArgumentParser()
    p.add_argument("--jobs", type=int, default=jobs)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--nodes", type=int, default=nodes)
    for flag, kw in more:
        p.add_argument(flag, **kw)
    a = p.parse_args()
    return a, random.Random(a.seed), flux.Flux()


def broker_rss_mb(pid):
    """The resident memory of process pid (the broker) in MB; 0 if unknown."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def job_states(h):
    """Jobs by state (job-list's counts): inactive, run, ..."""
    return h.rpc("job-list.job-stats", {}).get()["job_states"]


def weighted_choice(rng, shapes):
    """The maker (second item) of one of shapes [(weight, maker), ...], drawn
    by weight with one rng.uniform; the first's should rounding run past
    the last."""
    r = rng.uniform(0, sum(w for w, _ in shapes))
    for w, f in shapes:
        if r < w:
            return f
        r -= w
    return shapes[0][1]


def flux_cmd(*args):
    """Run `flux ARGS...`; exit the driver with flux's message when it fails."""
    r = subprocess.run(["flux", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    # flux-core applies a drain of ranks that have no broker (every rank
    # but 0 in these instances) and then fails to checkpoint it (it looks
    # the rank's host up in the broker's host map): ENOENT, the drain done,
    # but no event posted: a scheduler loaded before never hears of it
    if r.returncode != 0 and not (args[:2] in (("resource", "drain"), ("resource", "undrain"))
                                  and "No such file or directory" in r.stderr):
        sys.exit("flux %s: %s" % (" ".join(args), r.stderr.strip()))
