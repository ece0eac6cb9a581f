# The topology benchmark's driver (bench/flux_topo.sh runs it with `flux
# python` inside the instance): a stream of jobs of 1 to 4 task slots of
# C cores and G GPUs each, submitted at once, in fcfs order, each running
# a time drawn between --min and --max seconds under the test execution,
# so the machine fills and then turns over; then every job's R and the
# instants of its alloc and free, one JSON line a job (bench/topo_quality.py
# reads them).  Prints one line:
#   STREAM jobs seconds jobs/s first_alloc_s
# (submit of the first to the last job inactive; the first job's alloc
# after the submit began)
import json
import os
import sys
import time

import flux
import flux.job

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts"))
from fluxdrive import start  # noqa: E402

a, rng, h = start(1000, 64, ("--cores", {"type": int, "required": True}),
                  ("--gpus", {"type": int, "default": 0}),
                  ("--min", {"type": float, "default": 0.001}),
                  ("--max", {"type": float, "default": 0.001}),
                  ("--out", {"default": ""}))


def spec(slots, t):
    js = flux.job.JobspecV1.from_command(["true"], num_tasks=slots, cores_per_task=a.cores,
                                         gpus_per_task=a.gpus or None)
    js.setattr("system.exec.test.run_duration", "%.3fs" % t)
    js.duration = 0
    return js


def inactive():
    s = h.rpc("job-list.job-stats", {}).get()
    return s["job_states"]["inactive"] + s.get("inactive_purged", 0)


before = inactive()  # (of a stream run before this one in the instance)
t0 = time.time()
futures = []
for i in range(a.jobs):
    slots = rng.randint(1, 4)
    t = a.min if a.max <= a.min else rng.uniform(a.min, a.max)
    futures.append((flux.job.submit_async(h, spec(slots, t)), slots))
ids = [(f.get_id(), n) for f, n in futures]


while inactive() - before < len(ids):
    time.sleep(0.2)
t1 = time.time()

first = None
out = open(a.out, "w") if a.out else None
for jobid, n in ids:
    info = flux.job.job_kvs_lookup(h, jobid, keys=["R", "eventlog"], decode=False)
    t_alloc = t_free = None
    for line in (info.get("eventlog") or "").splitlines():
        ev = json.loads(line)
        if ev["name"] == "alloc":
            t_alloc = ev["timestamp"]
        elif ev["name"] == "free":
            t_free = ev["timestamp"]
    if t_alloc is not None and (first is None or t_alloc < first):
        first = t_alloc
    if out and info.get("R"):
        out.write(json.dumps({"id": int(jobid), "R": json.loads(info["R"]),
                              "slot": [a.cores, a.gpus], "slots": n, "t_alloc": t_alloc,
                              "t_free": t_free}) + "\n")
if out:
    out.close()
print("STREAM %d %.3f %.2f %.3f" % (len(ids), t1 - t0, len(ids) / (t1 - t0),
                                     (first - t0) if first else -1))
