# grove flux-export: write a Flux instance's history as JSON lines.
#
# Run by `grove flux-export` under `flux python` inside the instance (see
# lua/grove/cmd/flux-export.lua and docs/sim.md, "Test a policy on your
# own history before you deploy it").  It reads what flux-core keeps:
#
#   - every job the job manager holds, active and inactive, with all its
#     events, its jobspec and its R: one streaming request,
#     job-manager.events-journal with full = true, answered job by job
#     (the way the job manager itself hands its history over), so 100,000
#     jobs cost one request and their responses, not a request a job;
#   - the resource eventlog (resource.journal: drain, undrain, online,
#     offline, with their times) and the instance's R (resource.R);
#   - the configuration (config.get, what `flux config get` prints) and,
#     when sched-grove is the scheduler, what it runs with
#     (sched-grove.stats-get: its policies, depths and arguments).
#
# The file (format "grove-flux-history", version 1), one JSON object a
# line:
#
#   {"type": "header", "format": "grove-flux-history", "version": 1, ...}
#   {"type": "config", "config": {...}, "scheduler": {...} | null}
#   {"type": "R", "R": {...}}
#   {"type": "resource", "timestamp": T, "name": N, "context": {...}}   (in time order)
#   {"type": "job", "id": ID, "t_submit": T, "jobspec": {...}, "R": {...} | null,
#    "events": [{"timestamp":, "name":, "context":}, ...], ...}         (in submit order)
#   {"type": "end", "jobs": N, "resource_events": K, "timestamp": T}
#
# Each job line also carries what its events say, for a reader's eye:
# urgency and priority changes, holds and releases, dependencies, the
# cancel time, alloc (start), free (end) and the result.  The events stay
# the record; a reader derives from them.
import json
import os
import sys
import time

import flux
import flux.kvs
from flux.constants import FLUX_RPC_STREAMING

FORMAT = "grove-flux-history"
VERSION = 1
PROGRESS_EVERY = 5.0  # seconds between progress lines on stderr


def say(msg):
    sys.stderr.write("grove flux-export: " + msg + "\n")
    sys.stderr.flush()


def summary_of(events):
    """What a job's events say: the fields of its line beside the events."""
    out = {"urgency": [], "priority": [], "holds": [], "releases": [],
           "dependencies": [], "cancel": None, "alloc": None, "start": None,
           "finish": None, "free": None, "result": None, "exceptions": []}
    held = False
    for e in events:
        name, t, ctx = e.get("name"), e.get("timestamp"), e.get("context") or {}
        if name == "submit":
            out["urgency"].append([t, ctx.get("urgency")])
            held = ctx.get("urgency") == 0
        elif name == "urgency":
            out["urgency"].append([t, ctx.get("urgency")])
            if ctx.get("urgency") == 0 and not held:
                out["holds"].append(t)
                held = True
            elif ctx.get("urgency") != 0 and held:
                out["releases"].append(t)
                held = False
        elif name == "priority":
            out["priority"].append([t, ctx.get("priority")])
        elif name in ("dependency-add", "dependency-remove"):
            out["dependencies"].append([t, name, ctx.get("description")])
        elif name == "exception":
            out["exceptions"].append([t, ctx.get("type"), ctx.get("severity"), ctx.get("note")])
            if ctx.get("type") == "cancel" and out["cancel"] is None:
                out["cancel"] = t
        elif name in ("alloc", "start", "finish", "free"):
            out[name] = t
            if name == "finish":
                st = ctx.get("status")
                out["result"] = "completed" if st == 0 else "failed"
    if out["result"] is None:
        ex = [x for x in out["exceptions"] if x[2] == 0]
        if ex:
            out["result"] = "canceled" if ex[0][1] == "cancel" else "exception:" + str(ex[0][1])
    if out["result"] == "failed":
        ex = [x for x in out["exceptions"] if x[2] == 0]
        if ex and ex[0][1] == "timeout":
            out["result"] = "timeout"
        elif ex and ex[0][1] == "cancel":
            out["result"] = "canceled"
    return out


def decode(v):
    if isinstance(v, str):
        try:
            return json.loads(v)
        except ValueError:
            return v
    return v


def read_jobs(h, quiet):
    """Every job the job manager holds: {id: (events, jobspec, R)}."""
    jobs = {}
    f = h.rpc("job-manager.events-journal", {"full": True}, 0, FLUX_RPC_STREAMING)
    t0 = last = time.time()
    while True:
        resp = f.get()
        f.reset()
        jid = resp.get("id")
        if jid is None or jid < 0:
            break  # the sentinel: the backlog is read
        ev, js, R = jobs.get(jid, ([], None, None))
        ev.extend(resp.get("events") or [])
        js = resp.get("jobspec") or js
        R = resp.get("R") or R
        jobs[jid] = (ev, js, R)
        now = time.time()
        if not quiet and now - last >= PROGRESS_EVERY:
            say("%d jobs read, %.1f s" % (len(jobs), now - t0))
            last = now
    h.rpc("job-manager.events-journal-cancel",
          {"matchtag": f.pimpl.get_matchtag()}, 0, flux.constants.FLUX_RPC_NORESPONSE)
    return jobs


def read_resource_events(h):
    f = h.rpc("resource.journal", {}, 0, FLUX_RPC_STREAMING)
    events = []
    while True:
        resp = f.get()
        f.reset()
        ev = resp.get("events") or []
        if not ev:
            break
        events.extend(ev)
    h.rpc("resource.journal-cancel",
          {"matchtag": f.pimpl.get_matchtag()}, 0, flux.constants.FLUX_RPC_NORESPONSE)
    return events


def main(argv):
    out = sys.stdout
    if len(argv) > 1 and argv[1] != "-":
        out = open(argv[1], "w")
    quiet = os.environ.get("GROVE_EXPORT_QUIET") == "1"
    t0 = time.time()
    h = flux.Flux()
    conf = h.rpc("config.get").get()
    sched = None
    try:
        stats = h.rpc("sched-grove.stats-get").get()
        sched = {"name": "sched-grove", "stats": stats, "args": stats.get("args") or []}
    except OSError:
        sched = None
    R = decode(flux.kvs.get(h, "resource.R"))
    rev = read_resource_events(h)
    jobs = read_jobs(h, quiet)
    export_time = time.time()

    rows = []
    for jid, (ev, js, jR) in jobs.items():
        ev.sort(key=lambda e: e.get("timestamp", 0))
        t_submit = ev[0].get("timestamp") if ev and ev[0].get("name") == "submit" else None
        rows.append((t_submit if t_submit is not None else 0.0, jid, ev, js, jR))
    rows.sort(key=lambda r: (r[0], r[1]))

    w = out.write
    w(json.dumps({"type": "header", "format": FORMAT, "version": VERSION,
                  "created": export_time, "flux_version": h.attr_get("version"),
                  "size": int(h.attr_get("size")), "jobs": len(rows),
                  "resource_events": len(rev)}) + "\n")
    w(json.dumps({"type": "config", "config": conf, "scheduler": sched}) + "\n")
    w(json.dumps({"type": "R", "R": R}) + "\n")
    rev.sort(key=lambda e: e.get("timestamp", 0))
    for e in rev:
        w(json.dumps({"type": "resource", "timestamp": e.get("timestamp"),
                      "name": e.get("name"), "context": e.get("context") or {}}) + "\n")
    last = time.time()
    for n, (ts, jid, ev, js, jR) in enumerate(rows):
        line = {"type": "job", "id": jid, "t_submit": ts, "jobspec": decode(js),
                "R": decode(jR), "events": ev}
        line.update(summary_of(ev))
        w(json.dumps(line, separators=(",", ":")) + "\n")
        now = time.time()
        if not quiet and now - last >= PROGRESS_EVERY:
            say("%d of %d jobs written, %.1f s" % (n + 1, len(rows), now - t0))
            last = now
    w(json.dumps({"type": "end", "jobs": len(rows), "resource_events": len(rev),
                  "timestamp": export_time}) + "\n")
    out.flush()
    if out is not sys.stdout:
        out.close()
    if not quiet:
        say("%d jobs, %d resource events in %.1f s" % (len(rows), len(rev), time.time() - t0))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except OSError as e:
        say(str(e))
        sys.exit(1)
