#!/usr/bin/env python3
# Limits in a real instance (scripts/flux-check limits): a stream of jobs
# of three users, several banks and two queues, with `flux config reload` lowering
# [sched-grove.limits] on the way (and one bad value refused), then every
# job's R and its alloc and free times read back, and what the running
# jobs held summed per user, per bank, per queue and overall at every
# alloc: a job that started past a limit in force is an overshoot.  While
# a limit is lowered the running jobs may hold more than it (they keep
# running); no job may start then until its holders are under it.
#
#   flux python scripts/flux-limits.py CONF-DIR
#
# CONF-DIR/instance.toml is rewritten with each set of limits (its other
# tables kept from CONF-DIR/base.toml).  Prints what it checked; exits 1
# on an overshoot, on a limit never reached (a check that held nothing
# proves nothing), when `flux grove why` never names a limit, or when a
# job a limit held was never shown a start estimate.
#
# The other users' jobs are submitted by the instance's owner on their
# behalf, as flux-core's own tests do (t2264): a handle whose userid is
# theirs (FLUX_HANDLE_USERID) and a jobspec signed as them with the
# "none" mechanism (RFC 15), which the owner may use; the instance runs
# them under the test execution ([exec.testexec] allow-guests).
import base64
import json
import os
import random
import subprocess
import sys
import time

import flux
import flux.idset
import flux.job
from flux.job import JobspecV1

conf_dir = sys.argv[1]
base = open(conf_dir + "/base.toml").read()

STATE_SCHED = 8   # FLUX_JOB_STATE_SCHED (flux/core/job.h)

AMOUNTS = {"max-running-jobs": "jobs", "max-nodes": "node", "max-cores": "core"}

# Each phase: its limits ([sched-grove.limits] as a dict), how many jobs
# are submitted under it, and the queue policy (easy, then conservative,
# which plans every job, held ones too).
PHASES = [
    ({"max-running-jobs": 8, "user": {"max-nodes": 4},
      "bank": {"max-cores": 8}, "queues": {"debug": {"max-running-jobs": 2}}}, 40, "easy"),
    # lowered below what runs
    ({"max-running-jobs": 5, "user": {"max-nodes": 3},
      "bank": {"max-cores": 4}, "banks": {"c": {"max-cores": 2}},
      "queues": {"debug": {"max-running-jobs": 1}}}, 40, "conservative"),
    ({"max-running-jobs": 3, "user": {"max-cores": 6},
      "bank": {"max-running-jobs": 1}}, 30, "conservative"),
    # raised again: what is left drains
    ({"max-running-jobs": 16}, 0, "easy"),
]


def toml_of(lim):
    out = ["[sched-grove.limits]"]
    subs = []
    for k, v in lim.items():
        if isinstance(v, dict):
            subs.append((k, v))
        else:
            out.append("%s = %s" % (k, json.dumps(v)))
    for k, v in subs:
        if k in ("user", "bank"):
            out.append("[sched-grove.limits.%s]" % k)
            out += ["%s = %s" % (a, json.dumps(b)) for a, b in v.items()]
        else:
            for name, t in v.items():
                out.append("[sched-grove.limits.%s.%s]" % (k, name))
                out += ["%s = %s" % (a, json.dumps(b)) for a, b in t.items()]
    return "\n".join(out) + "\n"


def write_conf(lim, policy="easy"):
    with open(conf_dir + "/instance.toml", "w") as f:
        f.write(base.replace('queue-policy = "easy"', 'queue-policy = "%s"' % policy)
                + "\n" + toml_of(lim))


def reload():
    return subprocess.run(["flux", "config", "reload"], capture_output=True, text=True)


def limit(lim, kind, name, amount):
    """The limit of amount for a holder under lim (None: none)."""
    key = {v: k for k, v in AMOUNTS.items()}[amount]
    if kind == "all":
        return lim.get(key)
    if kind == "queue":
        return lim.get("queues", {}).get(name, {}).get(key)
    own = lim.get(kind + "s", {}).get(str(name), {})
    if key in own:
        return own[key]
    return lim.get(kind, {}).get(key)


h = flux.Flux()
OWNER = os.getuid()
USERS = [OWNER, OWNER + 100, OWNER + 101]
handles = {OWNER: h}
for uid in USERS[1:]:
    os.environ["FLUX_HANDLE_USERID"] = str(uid)
    handles[uid] = flux.Flux()
    del os.environ["FLUX_HANDLE_USERID"]


def signed(uid, spec):
    """jobspec text signed as uid with the "none" mechanism (RFC 15's
    header of version, userid and mechanism, then the payload)."""
    head = b"version\0i1\0userid\0i%d\0mechanism\0snone\0" % uid
    return "%s.%s.none" % (base64.b64encode(head).decode(),
                           base64.b64encode(spec.encode()).decode())


def submit(uid, js):
    if uid == OWNER:
        return flux.job.submit(h, js)
    return flux.job.submit(handles[uid], signed(uid, js.dumps()), pre_signed=True)


rng = random.Random(65)
ids = []
# (time the reload was asked, time it answered, old limits, new limits)
changes = []
why_named = 0
held_seen = held_estimated = 0
current = PHASES[0][0]
write_conf(current)
r = reload()
assert r.returncode == 0, r.stderr
for phase, (lim, njobs, policy) in enumerate(PHASES):
    if phase > 0:
        write_conf(lim, policy)
        t0 = time.time()
        r = reload()
        t1 = time.time()
        assert r.returncode == 0, r.stderr
        changes.append((t0, t1, current, lim))
        current = lim
        print("phase %d: %s, limits %s (reload %.3f..%.3f)" % (phase, policy, json.dumps(lim),
                                                              t0, t1))
    if phase == 1:
        # a bad value is refused with the key, and the limits in force stay
        bad = dict(lim)
        bad["bank"] = {"max-cores": -1}
        write_conf(bad, policy)
        r = reload()
        assert r.returncode != 0, "a negative limit was taken"
        assert "max-cores=-1: a limit must be 0 or more" in r.stderr, r.stderr
        write_conf(lim, policy)
        print("refused: " + r.stderr.strip())
    for i in range(njobs):
        bank = rng.choice(["a", "b", "c"])
        queue = rng.choice(["batch", "batch", "debug"])
        if rng.random() < 0.4:
            n = rng.choice([1, 1, 2])
            js = JobspecV1.from_command(["true"], num_nodes=n, num_tasks=n, exclusive=True)
        else:
            js = JobspecV1.from_command(["true"], num_tasks=rng.choice([1, 2, 3, 4]),
                                        cores_per_task=1)
        js.duration = 20
        js.setattr("system.exec.test.run_duration", "%.1fs" % rng.uniform(0.3, 1.5))
        js.setattr("system.bank", bank)
        js.setattr("system.queue", queue)
        ids.append(submit(rng.choice(USERS), js))
        time.sleep(rng.uniform(0.02, 0.12))
        if i == njobs // 2:
            # a pending job a limit holds: flux grove why names it
            for j in reversed(ids[-12:]):
                info = flux.job.get_job(h, j)
                if info and info.get("state") == "SCHED":
                    out = subprocess.run(["flux", "grove", "why", str(j)],
                                         capture_output=True, text=True).stdout
                    if "held by" in out:
                        why_named += 1
                        print("why: " + " | ".join(out.strip().splitlines()))
                        break
        # a job a limit holds shows the start its limit allows: its
        # reason names the limit, and its estimate is there
        for j in ids[-12:]:
            info = h.rpc("job-list.list-id", {"id": j, "attrs": ["state", "annotations"]}
                         ).get()["job"]
            sched_ann = (info.get("annotations") or {}).get("sched") or {}
            if info.get("state") == STATE_SCHED and " limit " in str(
                    sched_ann.get("reason_pending", "")):
                held_seen += 1
                if sched_ann.get("t_estimate") is not None:
                    held_estimated += 1

for j in ids:
    flux.job.event_wait(h, j, "clean")

# Every job's R, bank, queue, user and its alloc and free times.
jobs = []
for j in ids:
    d = flux.job.job_kvs_lookup(h, j, keys=["R", "eventlog", "jobspec"], decode=False)
    R = json.loads(d["R"])["execution"]
    nodes = cores = 0
    for entry in R["R_lite"]:
        ranks = flux.idset.IDset(entry["rank"])
        n = len(ranks)
        nodes += n
        cores += n * len(flux.idset.IDset(entry["children"].get("core", "")))
    alloc = free = None
    for line in d["eventlog"].splitlines():
        e = json.loads(line)
        if e["name"] == "alloc":
            alloc = e["timestamp"]
        elif e["name"] == "free":
            free = e["timestamp"]
    spec = json.loads(d["jobspec"])
    sysattr = spec["attributes"]["system"]
    info = flux.job.get_job(h, j)
    assert alloc is not None and free is not None, "job %s: no alloc or free" % j
    jobs.append({"id": j, "alloc": alloc, "free": free, "node": nodes, "core": cores,
                 "jobs": 1, "bank": sysattr["bank"], "queue": sysattr["queue"],
                 "user": info["userid"]})


def in_force(t):
    """The limits whose holders must not pass at a start at t: during a
    reload, the higher of the old and the new."""
    lim = PHASES[0][0]
    for t0, t1, old, new in changes:
        if t >= t1:
            lim = new
        elif t >= t0:
            return [old, new]
    return [lim]


over = []
reached = set()
peak = {}
for job in sorted(jobs, key=lambda x: x["alloc"]):
    t = job["alloc"]
    running = [x for x in jobs if x["alloc"] <= t < x["free"]]
    for kind, name in (("all", ""), ("user", job["user"]), ("bank", job["bank"]),
                       ("queue", job["queue"])):
        mine = [x for x in running if kind == "all" or x[kind] == name]
        for amount in ("jobs", "node", "core"):
            held = sum(x[amount] for x in mine)
            key = (kind, name, amount)
            peak[key] = max(peak.get(key, 0), held)
            lims = [limit(L, kind, name, amount) for L in in_force(t)]
            if any(v is None for v in lims):
                continue
            lim = max(lims)
            if held > lim:
                over.append("job %s started at %.3f: %s %s holds %d %s, over its limit %d" %
                            (flux.job.JobID(job["id"]).f58, t, kind, name, held, amount, lim))
            elif held == lim:
                reached.add(key)

print("%d jobs, %d reloads; peaks: %s" % (len(jobs), len(changes), ", ".join(
    "%s %s %s=%d" % (k[0], k[1], k[2], v) for k, v in sorted(peak.items(), key=str)
    if v > 0)))
print("limits reached at a start: %d holders" % len(reached))
users_ran = sorted({job["user"] for job in jobs})
print("users whose jobs ran: %s" % ", ".join(str(u) for u in users_ran))
print("jobs a limit held, seen pending: %d, with a start estimate: %d" %
      (held_seen, held_estimated))
for line in over:
    print("overshoot: " + line)
if over:
    sys.exit(1)
if not reached:
    print("no limit was ever reached: the stream checked nothing")
    sys.exit(1)
if why_named == 0:
    print("flux grove why never named a limit")
    sys.exit(1)
if len(users_ran) < len(USERS):
    print("not every user's jobs ran")
    sys.exit(1)
if held_seen == 0 or held_estimated == 0:
    print("no job a limit held was seen with a start estimate")
    sys.exit(1)
print("no overshoot")
