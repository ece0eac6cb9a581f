# The deep-queue benchmark's driver (bench/flux_deep.sh runs it with
# `flux python` inside the instance, its scheduler loaded): the machine
# filled, a deep queue of mixed jobs behind, then the fill ended and the
# queue drained.  Prints one line:
#   DEEP submit_s feas_p50_ms feas_p99_ms list_s status_ms floor_s rss_MB drain_jobs_s
#        ann_per_job ping_p50_ms ping_p99_ms rstatus_ms offline_s stats
# ping_*: the round trip of heartbeat.ping, a module thread with nothing
# to do, asked right after each feasibility.check: what any request to a
# module costs at that moment, the scheduler's work aside (on a machine
# of few CPUs the broker's other threads are busy with the submissions).
# With --baseline no scheduler is loaded: the fill and the queue are
# submitted and left pending, and only submit_s and rss_MB are printed
# (what the broker holds for the instance and its jobs without a
# scheduler, the base of the scheduler's own memory).
# status_ms: the sched.resource-status round trip `flux resource list`
# makes; floor_s: `flux python -c "import flux.resource"`, the command's
# start-up without any request.
# rstatus_ms: the resource.sched-status round trip, what the command
# asks (the resource module, which asks the job manager); offline_s: the
# command with that answer on its standard input (--from-stdin), nothing
# asked: list_s is about offline_s and rstatus_ms.
# stats: the scheduler module's own statistics (JSON, one line) or {}.
import errno
import json
import os
import subprocess
import sys
import time

import flux
import flux.job

# the helpers the drivers share (scripts/fluxdrive.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts"))
from fluxdrive import broker_rss_mb, job_states, start, weighted_choice  # noqa: E402

a, rng, h = start(10000, 16384, ("--stats", {"default": ""}),
                  ("--baseline", {"action": "store_true"}))
pid = int(h.attr_get("broker.pid"))


def jobspec(nodes=None, tasks=1, cores=1, gpus=0, exclusive=False, limit=600, run=0.2,
            constraints=None):
    """A V1 jobspec as a dict, made by hand (flux's own builder checks a
    hostlist constraint against the brokers' hosts, which the instance's
    forced-up ranks have none of)."""
    slot = {"type": "slot", "count": 1, "label": "task",
            "with": [{"type": "core", "count": cores}]}
    if gpus:
        slot["with"].append({"type": "gpu", "count": gpus})
    if nodes:
        slot["count"] = tasks // nodes
        res = [{"type": "node", "count": nodes, "with": [slot]}]
        if exclusive:
            res[0]["exclusive"] = True
    else:
        slot["count"] = tasks
        res = [slot]
    system = {"duration": limit, "exec": {"test": {"run_duration": "%.3fs" % run}}}
    if constraints:
        system["constraints"] = constraints
    return {"version": 1, "resources": res,
            "tasks": [{"command": ["true"], "slot": "task", "count": {"per_slot": 1}}],
            "attributes": {"system": system}}


N = a.nodes
# sizes, exclusive nodes, GPUs, property and hostlist constraints, and 5%
# that can never run (they need the property of ranks that are drained)
SHAPES = [
    (30, lambda: jobspec(tasks=1)),
    (12, lambda: jobspec(tasks=8, cores=4)),
    (12, lambda: jobspec(nodes=1, exclusive=True)),
    (8, lambda: jobspec(nodes=16, tasks=16, exclusive=True)),
    (4, lambda: jobspec(nodes=128, tasks=128, exclusive=True)),
    (1, lambda: jobspec(nodes=1024, tasks=1024, exclusive=True)),
    (10, lambda: jobspec(tasks=2, gpus=1)),
    (9, lambda: jobspec(nodes=2, tasks=2, constraints={"properties": ["batch"]})),
    (9, lambda: jobspec(nodes=1, tasks=1, constraints={
        "hostlist": ["node[%d-%d]" % (N // 2, N // 2 + 255)]})),
    (5, lambda: jobspec(nodes=1, tasks=1, constraints={"properties": ["rare"]})),
]


def pick():
    return weighted_choice(rng, SHAPES)()


def submit_all(specs):
    # novalidate: job-ingest's jobspec validator checks a hostlist
    # constraint against the brokers' hosts (the forced-up ranks have no
    # broker); the scheduler's own feasibility check is timed below
    futures = [flux.job.submit_async(h, json.dumps(s), novalidate=True) for s in specs]
    return [flux.job.submit_get_id(f) for f in futures]


# the fill: every node that is up, exclusive, for an hour (the last four,
# the rare ones, are drained: the last job of the fill is four nodes short)
sizes = [N // 16] * 15 + [N - 15 * (N // 16) - 4]
fill = submit_all([jobspec(nodes=n, tasks=n, exclusive=True, limit=3600, run=3600)
                   for n in sizes])
while not a.baseline and job_states(h)["run"] < 16:
    time.sleep(0.2)

# the deep queue, 500 jobs at a time; after each batch, while the
# scheduler takes it in, feasibility checks of the jobs' own requests
# (1,000 in all, 50 a batch at 10,000 jobs): what a user's submission
# meets with the queue deep and others submitting.  Each check is
# followed by heartbeat.ping (ping_*).  (The first runs asked 200 checks
# after the whole queue was in: its p99 was the second worst.)
specs = [pick() for _ in range(a.jobs)]
checks = rng.sample(specs, min(1000, len(specs)))
per = max(1, len(checks) * 500 // len(specs))
lat, ping = [], []


def check(s):
    t = time.monotonic()
    try:
        h.rpc("feasibility.check", {"jobspec": s}).get()
    except OSError as e:
        # an answer that the job cannot run is an answer; no service is not
        if e.errno == errno.ENOSYS:
            sys.exit("deep: feasibility.check: the scheduler does not answer it")
    lat.append(time.monotonic() - t)
    t = time.monotonic()
    h.rpc("heartbeat.ping", {}).get()
    ping.append(time.monotonic() - t)


submit_s = 0.0
ids = []
for b, i in enumerate(range(0, len(specs), 500)):
    t0 = time.monotonic()
    ids += submit_all(specs[i:i + 500])
    submit_s += time.monotonic() - t0
    if not a.baseline:
        for s in checks[b * per:(b + 1) * per]:
            check(s)
never = sum(1 for s in specs if s["attributes"]["system"].get("constraints") ==
            {"properties": ["rare"]})
if a.baseline:
    # every job known to the job manager and listed, none scheduled
    while job_states(h)["sched"] < 16 + a.jobs:
        time.sleep(0.5)
    time.sleep(2)
    print("DEEP %.2f - - - - - %d - - - - - - {}" % (submit_s, broker_rss_mb(pid)))
    sys.exit(0)

lat.sort()
ping.sort()

time.sleep(2)  # the queue settles
t = time.monotonic()
subprocess.run(["flux", "resource", "list"], stdout=subprocess.DEVNULL, check=True)
list_s = time.monotonic() - t
# the scheduler's own part of it: the sched.resource-status round trip
# (the median of five), and the floor of the command's Python: its
# interpreter and flux module started, nothing asked
rpc = []
for _ in range(5):
    t = time.monotonic()
    h.rpc("sched.resource-status").get()
    rpc.append(time.monotonic() - t)
rpc.sort()
status_ms = rpc[2] * 1e3
t = time.monotonic()
subprocess.run(["flux", "python", "-c", "import flux.resource"], check=True)
floor_s = time.monotonic() - t
# where the rest of the command's time goes: what it asks (the resource
# module's resource.sched-status, which asks the job manager, not the
# scheduler; the median of five), and the command given that answer on
# its standard input, nothing asked (its start-up and its own work on
# the three sets of every node)
rpc = []
for _ in range(5):
    t = time.monotonic()
    answer = h.rpc("resource.sched-status").get()
    rpc.append(time.monotonic() - t)
rpc.sort()
rstatus_ms = rpc[2] * 1e3
t = time.monotonic()
subprocess.run(["flux", "resource", "list", "--from-stdin"], input=json.dumps(answer).encode(),
               stdout=subprocess.DEVNULL, check=True)
offline_s = time.monotonic() - t
rss = broker_rss_mb(pid)

# the fill ends: the queue drains, all but the jobs that can never run
t1 = time.monotonic()
for j in fill:
    flux.job.cancel(h, j)
target = 16 + a.jobs - never
while job_states(h)["inactive"] < target:
    if time.monotonic() - t1 > 3600:
        break
    time.sleep(0.5)
drain = time.monotonic() - t1
done = job_states(h)["inactive"] - 16

stats = {}
if a.stats:
    try:
        stats = h.rpc(a.stats + ".stats-get", {}).get()
    except OSError:
        stats = {}
ann = stats.get("annotations_sent")
print("DEEP %.2f %.2f %.2f %.3f %.1f %.3f %d %.1f %s %.2f %.2f %.1f %.3f %s" % (
    submit_s, lat[len(lat) // 2] * 1e3, lat[len(lat) * 99 // 100] * 1e3, list_s, status_ms,
    floor_s, rss,
    done / drain if drain > 0 else 0.0,
    "%.2f" % (ann / a.jobs) if ann is not None else "-",
    ping[len(ping) // 2] * 1e3, ping[len(ping) * 99 // 100] * 1e3, rstatus_ms, offline_s,
    json.dumps(stats)))
sys.stdout.flush()
