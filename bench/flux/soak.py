# The soak's driver (bench/flux_soak.sh runs it with `flux python` inside
# the instance): a stream of mixed jobs with cancels, urgency changes,
# holds, drains and module reloads, then what it left.  Prints one line:
#   SOAK jobs/s rss10_MB rss_MB ratio wrong views
# and one of what was kept at each of the two readings:
#   SOAKMEM inactive10 inactive lua10_kB lua_kB
# (the job manager's inactive jobs not yet purged; the scheduler's Lua
# heap, sched-grove only: "-" for another module)
import json
import os
import subprocess
import sys
import time

import flux
import flux.job

# the helpers the drivers share (scripts/fluxdrive.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts"))
from fluxdrive import broker_rss_mb, flux_cmd, start, weighted_choice  # noqa: E402
from flux.util import parse_fsd  # noqa: E402

a, rng, h = start(100000, 16384, ("--module", {"default": "sched-grove"}),
                  ("--path", {"required": True}), ("--args", {"default": ""}),
                  ("--purge-age", {"default": ""}))
purge_age = parse_fsd(a.purge_age) if a.purge_age else None
pid = int(h.attr_get("broker.pid"))
# drains name ranks that have a broker: flux-core applies a drain of a
# rank with none but then fails (ENOENT, looking its host up in the
# broker's host map) before it posts the event, so no scheduler hears
# of it, nor of the undrain (a scheduler loaded in between keeps it down)
brokers = int(h.attr_get("size"))


def stats():
    """Jobs by state (job-list's counts): inactive (purged ones included:
    the job manager may purge inactive jobs, see flux_soak.sh), run, ..."""
    s = h.rpc("job-list.job-stats", {}).get()
    st = dict(s["job_states"])
    st["inactive"] += s.get("inactive_purged", 0)
    return st


def purge(n):
    """n requests for the job manager's purge of inactive jobs older than
    the purge age, 100 each (its most): its own purge, one commit at a
    time once a heartbeat, falls behind this stream (flux_soak.sh)."""
    if purge_age is None:
        return []
    msg = {"age_limit": purge_age, "num_limit": -1, "batch": 100, "force": True}
    return [h.rpc("job-manager.purge", msg) for _ in range(n)]


def kept():
    """(inactive jobs the job manager still keeps, the scheduler's Lua
    heap in kB or "-")"""
    inactive = h.rpc("job-manager.stats-get", {}).get()["inactive_jobs"]
    heap = "-"
    if a.module == "sched-grove":
        heap = h.rpc("sched-grove.stats-get", {}).get()["lua_gc"]["heap_kb"]
    return inactive, heap


# what the scheduler module reported of itself, summed over its loads
# (each reload starts its counters again): its thread's CPU seconds,
# allocs answered, annotations sent, passes and matches that placed a
# job or did not (sched-grove)
sched_used = {"cpu_s": 0.0, "allocs": 0, "annotations_sent": 0, "passes": 0,
              "jobs_matched": 0, "matches_failed": 0}


def sched_tally():
    st = h.rpc(a.module + ".stats-get", {}).get()
    st["passes"] = (st.get("pass_time") or {}).get("n", 0)
    for k in sched_used:
        sched_used[k] += st.get(k, 0)


# each job's result, read as it becomes inactive (before any purge)
results = {}
since = 0.0


def collect():
    global since
    jl = flux.job.JobList(h, max_entries=0, attrs=["result", "t_inactive"],
                          filters=["inactive"], since=since).fetch_jobs().get_jobs()
    for j in jl:
        results[j["id"]] = j.get("result")
        since = max(since, j.get("t_inactive", 0.0))


# the shapes: (weight, make a jobspec).  Each shape's jobspec is built
# once (JobspecV1 is slow to build: the driver, not the scheduler, set the
# pace when it built one a job) and each job gets its own run time.
def spec(**kw):
    js = flux.job.JobspecV1.from_command(["true"], **kw)
    js.setattr("system.exec.test.run_duration", "RUN")
    js.duration = 600
    return js


ranks = "0-%d" % min(a.nodes - 1, 1023)
SHAPES = [
    (40, lambda: spec(num_tasks=1)),
    (15, lambda: spec(num_tasks=1, cores_per_task=4)),
    (15, lambda: spec(num_tasks=1, num_nodes=1, exclusive=True)),
    (10, lambda: spec(num_tasks=4, num_nodes=4)),
    (5, lambda: spec(num_tasks=64, num_nodes=64, exclusive=True)),
    (1, lambda: spec(num_tasks=512, num_nodes=512, exclusive=True)),
    (8, lambda: spec(num_tasks=1, gpus_per_task=1)),
    (6, lambda: constrained()),
]


def constrained():
    js = spec(num_tasks=1, num_nodes=1)
    js.setattr("system.constraints", {"ranks": [ranks]})
    return js


TEXTS = [(w, f().dumps()) for w, f in SHAPES]


def pick():
    text = weighted_choice(rng, TEXTS)
    return text.replace('"RUN"', '"%.3fs"' % rng.uniform(0.01, 2.0))


ids, cancelled, held = [], set(), []
drained = []
rss10 = None
kept10 = ("-", "-")
t0 = time.monotonic()
batch = 500
reloads = set() if os.environ.get("SOAK_NO_RELOAD") else {a.jobs // 3, 2 * a.jobs // 3}
for start in range(0, a.jobs, batch):
    futures = []
    for i in range(start, min(start + batch, a.jobs)):
        hold = rng.random() < 0.02
        futures.append((flux.job.submit_async(h, pick(), urgency=0 if hold else 16), hold))
    for f, hold in futures:
        jid = flux.job.submit_get_id(f)
        ids.append(jid)
        if hold:
            held.append(jid)
    n = len(ids)
    # the batch's requests that need no answer now (cancels, urgency):
    # their answers are read at the batch's end, so none piles up unread
    # in the handle (each unread answer stays queued in it for good)
    pending = []
    # cancels: 10% of the stream, half at once (pending), half from earlier
    # batches (running or pending or done)
    for jid in rng.sample(ids[-batch:], batch // 20):
        cancelled.add(jid)
        pending.append(flux.job.cancel_async(h, jid))
    older = ids[: max(0, n - batch)]
    for jid in rng.sample(older, min(len(older), batch // 20)):
        if jid not in cancelled:
            cancelled.add(jid)
            pending.append(flux.job.cancel_async(h, jid))
    # urgency changes
    for jid in rng.sample(ids[-batch:], batch // 50):
        if jid not in held:
            pending.append(h.rpc("job-manager.urgency",
                                 {"id": jid, "urgency": rng.choice([8, 24])}))
    # holds released a batch later
    # (a stream shorter than a batch has no job a batch back: none released)
    cut = ids[-batch] if len(ids) >= batch else ids[0]
    release = [j for j in held if j < cut]
    for jid in release:
        pending.append(h.rpc("job-manager.urgency", {"id": jid, "urgency": 16}))
    held = [j for j in held if j not in release]
    # drains: 2 ranks with a broker every tenth of the stream, undrained a twentieth later
    tenth = max(batch, a.jobs // 10)
    if n % tenth < batch:
        busy = {int(r) for _, rs in drained for r in rs.split(",")}
        free = [r for r in range(brokers) if r not in busy]
        ranks = ",".join(str(r) for r in sorted(rng.sample(free, min(2, len(free)))))
        flux_cmd("resource", "drain", ranks, "soak")
        drained.append((n, ranks))
    for when, ranks in list(drained):
        if n - when >= tenth // 2:
            flux_cmd("resource", "undrain", ranks)
            drained.remove((when, ranks))
    pending += purge(batch // 100 + 1)
    # module reloads with jobs running and pending
    for r in list(reloads):
        if n >= r:
            sched_tally()
            flux_cmd("module", "reload", "-f", a.path, *a.args.split())
            reloads.discard(r)
    for f in pending:
        try:
            f.get()
        except OSError:
            pass  # a job that ended before its cancel or urgency came
    collect()
    if rss10 is None:
        st = stats()
        if st["inactive"] >= a.jobs // 10:
            rss10 = broker_rss_mb(pid)
            kept10 = kept()

for jid in held:
    h.rpc("job-manager.urgency", {"id": jid, "urgency": 16}).get()
for _, ranks in drained:
    flux_cmd("resource", "undrain", ranks)
while True:
    st = stats()
    if rss10 is None and st["inactive"] >= a.jobs // 10:
        rss10 = broker_rss_mb(pid)
        kept10 = kept()
    collect()
    if st["inactive"] >= a.jobs:
        break
    for f in purge(2):
        f.get()
    time.sleep(0.5)
collect()
elapsed = time.monotonic() - t0
rss = broker_rss_mb(pid)
kept_end = kept()
sched_tally()

# every job's end: completed, or canceled for those cancelled
wrong = 0
for jid in ids:
    r = results.get(jid)
    ok = {flux.constants.FLUX_JOB_RESULT_COMPLETED}
    if jid in cancelled:
        ok.add(flux.constants.FLUX_JOB_RESULT_CANCELED)
    if r not in ok:
        wrong += 1

# the views at the end: nothing allocated anywhere, no rank drained
views = "-"


def view():
    s = h.rpc("sched.resource-status", {}).get()
    alloc_sched = s["allocated"]["execution"]["R_lite"]
    listed = subprocess.run(["flux", "resource", "list", "-s", "allocated", "-no", "{nnodes}"],
                            capture_output=True, text=True).stdout.strip()
    drain = subprocess.run(["flux", "resource", "status", "-s", "drain", "-no", "{ranks}"],
                           capture_output=True, text=True).stdout.strip()
    running = stats().get("run", 0)
    agree = not alloc_sched and listed in ("", "0") and running == 0 and drain == ""
    return "agree" if agree else "DIFFER(sched=%s list=%s running=%s drain=%s)" % (
        json.dumps(alloc_sched), listed, running, drain)


if a.module == "sched-grove":
    # a job is inactive once its free is sent (RFC 27 frees have no
    # answer): the scheduler may take the last ones a moment later
    for _ in range(20):
        views = view()
        if views == "agree":
            break
        time.sleep(0.5)
    if views != "agree" and os.environ.get("SOAK_DEBUG"):
        # the jobs the scheduler still holds, and what flux-core says of them
        out = subprocess.run([os.environ["SOAK_DEBUG"], "graph", "--json", "--types=node,core"],
                             capture_output=True, text=True)
        jobs = set()
        try:
            for n in json.loads(out.stdout)["graph"]["nodes"]:
                for r in n.get("metadata", {}).get("grove", {}).get("records", []) or []:
                    jobs.add(r.get("job"))
        except Exception as e:  # noqa
            sys.stderr.write("graph: %s %s\n" % (e, out.stderr[:500]))
        sys.stderr.write("held by: %s\n" % sorted(j for j in jobs if j is not None)[:20])
        for j in sorted(j for j in jobs if j is not None)[:5]:
            ev = subprocess.run(["flux", "job", "eventlog", str(j)], capture_output=True,
                                text=True)
            sys.stderr.write("job %s (%s in soak: cancelled %s):\n%s\n" % (
                j, j in ids, j in cancelled, ev.stdout))

print("SOAK %.1f %s %s %.3f %d %s" % (a.jobs / elapsed, rss10, rss,
      (rss / rss10) if rss10 else 0.0, wrong, views))
print("SOAKMEM %s %s %s %s" % (kept10[0], kept_end[0], kept10[1], kept_end[1]))
print("SOAKSCHED %.1f %d %d %d %d %d" % (sched_used["cpu_s"], sched_used["allocs"],
      sched_used["annotations_sent"], sched_used["passes"], sched_used["jobs_matched"],
      sched_used["matches_failed"]))
sys.stdout.flush()
