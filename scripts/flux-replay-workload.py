# The workload of scripts/flux-replay-check, run with `flux python` inside
# its instance: a stream of jobs of mixed sizes, constraints and queues
# under the test execution with fixed run times, with cancels (while
# pending and while running), urgency changes, holds released later and a
# drain of some nodes (undrained later), then waits for every job to end.
# Prints one line: "WORKLOAD jobs submitted_s total_s wrong".
import os
import sys
import time

import flux
import flux.job

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fluxdrive import flux_cmd, job_states, start, weighted_choice  # noqa: E402

a, rng, h = start(5000, 1024, ("--rate", {"type": float, "default": 20.0,
                                          "help": "jobs submitted a second"}))


def urgency(jid, u):
    # a job may have ended (or been cancelled) meanwhile: nothing to change
    try:
        h.rpc("job-manager.urgency", {"id": jid, "urgency": u}).get()
    except OSError:
        pass


RUNS = [1.0, 2.0, 3.0, 5.0, 8.0]   # the fixed run times (test execution)
half = a.nodes // 2


def spec(queue, **kw):
    js = flux.job.JobspecV1.from_command(["true"], **kw)
    run = rng.choice(RUNS)
    js.setattr("system.exec.test.run_duration", "%gs" % run)
    js.duration = 10 if run < 5 else 20
    js.setattr("system.queue", queue)
    return js


def constrained(queue):
    if queue == "debug":  # the debug nodes are not in 512-...: never satisfiable
        return spec(queue, num_tasks=2, num_nodes=2, exclusive=True)
    js = spec(queue, num_tasks=2, num_nodes=2, exclusive=True)
    js.setattr("system.constraints", {"ranks": ["%d-%d" % (half, a.nodes - 1)]})
    return js


# (weight, queue, make a jobspec)
SHAPES = [
    (30, lambda q: spec(q, num_tasks=1)),
    (15, lambda q: spec(q, num_tasks=1, cores_per_task=8)),
    (15, lambda q: spec(q, num_tasks=1, num_nodes=1, exclusive=True)),
    (12, lambda q: spec(q, num_tasks=8, num_nodes=8, exclusive=True)),
    (8, lambda q: spec(q, num_tasks=1, gpus_per_task=2)),
    (6, lambda q: spec(q, num_tasks=64, num_nodes=64, exclusive=True)),
    (2, lambda q: spec(q, num_tasks=256, num_nodes=256, exclusive=True)),
    (6, constrained),
]


def pick():
    queue = "debug" if rng.random() < 0.2 else "batch"
    js = weighted_choice(rng, SHAPES)(queue)
    if queue == "debug" and js.resources[0].get("count", 1) > 16:
        js = spec(queue, num_tasks=4, num_nodes=4, exclusive=True)
    return js


ids, cancelled, held = [], set(), []
t0 = time.time()
batch = 2
drain_at, undrain_at = int(a.jobs * 0.4), int(a.jobs * 0.7)
drained = None
for start in range(0, a.jobs, batch):
    tb = time.time()
    futures = []
    for i in range(start, min(start + batch, a.jobs)):
        hold = rng.random() < 0.01
        futures.append((flux.job.submit_async(h, pick(), urgency=0 if hold else 16), hold))
    new = []
    for f, hold in futures:
        jid = flux.job.submit_get_id(f)
        ids.append(jid)
        new.append(jid)
        if hold:
            held.append(jid)
    n = len(ids)
    # cancels: 5% of the stream, of jobs submitted one to ten batches
    # before (a half to five seconds: waiting, running or ended), never at
    # the instant a job arrives (where the cancel and the alloc race)
    older = ids[max(0, n - 11 * batch): max(0, n - batch)]
    for jid in [j for j in older if rng.random() < 0.05 / 10]:
        if jid not in cancelled:
            cancelled.add(jid)
            flux.job.cancel_async(h, jid)
    # urgency changes of waiting jobs
    for jid in [j for j in new if rng.random() < 0.02]:
        if jid not in held and jid not in cancelled:
            urgency(jid, rng.choice([8, 24, 31]))
    # holds released ten batches later
    release = [j for j in held if j not in ids[-10 * batch:]]
    for jid in release:
        urgency(jid, 16)
    held = [j for j in held if j not in release]
    if drained is None and n >= drain_at:
        # rank 0: the one rank with a broker, whose drain the resource
        # eventlog records (a drain of a rank with no broker is applied but
        # not posted: its host is not in the broker's host map)
        drained = "0"
        flux_cmd("resource", "drain", drained, "replay-check")
    if drained and n >= undrain_at:
        flux_cmd("resource", "undrain", drained)
        drained = ""
    # the pace: a batch every batch / rate seconds
    left = batch / a.rate - (time.time() - tb)
    if left > 0:
        time.sleep(left)
submitted = time.time() - t0
for jid in held:
    urgency(jid, 16)
if drained:
    flux_cmd("resource", "undrain", drained)
while True:
    st = job_states(h)
    if st["inactive"] >= a.jobs:
        break
    time.sleep(0.5)
total = time.time() - t0
jl = flux.job.JobList(h, max_entries=0, attrs=["result"]).fetch_jobs().get_jobs()
wrong = 0
for j in jl:
    ok = {flux.constants.FLUX_JOB_RESULT_COMPLETED}
    if j["id"] in cancelled:
        ok.add(flux.constants.FLUX_JOB_RESULT_CANCELED)
    if j.get("result") not in ok:
        wrong += 1
print("WORKLOAD %d %.1f %.1f %d" % (len(ids), submitted, total, wrong))
