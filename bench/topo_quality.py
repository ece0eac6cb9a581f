#!/usr/bin/env python3
"""The share of task slots whose cores and GPUs share one locality domain,
computed from each job's R against the node's hwloc XML.

    bench/topo_quality.py XML JOBS.jsonl [--nodes N] [--json]
    bench/topo_quality.py XML --domains

XML is an hwloc topology (hwloc 1.x or 2.x export); every rank of the
instance is a node of that shape.  JOBS.jsonl holds one job a line:
{"id": ..., "R": {R of the job}, "slot": [cores, gpus] (a slot's cores and
GPUs, from its jobspec), "t_alloc": s, "t_free": s (null while it runs)}
(bench/flux/topo_stream.py writes it).

It reads R and the XML with nothing of Grove: the XML with Python's own
parser, the numbering as flux-core's R and job shell have it -- a core is
its place among the Core objects in document order (hwloc's logical
index), a GPU its place among the OS devices of backend CUDA, NVML, OpenCL
or RSMI in document order, one per PCI device seen under several backends
(librlist's rhwloc.c), none when the topology has no PCI device.  A
locality domain is a NUMA node with processors (one per set of
processors); a core is in the domain whose processors hold its own; a GPU
is local to the domains whose processors lie within those of its nearest
ancestor that has processors (its bridge's package or group).

A job's slots on a rank are what flux-core's job shell makes of its R
there: the cores in id order cut in runs of the slot's core count, the
GPUs in id order in runs of its GPU count (gpu-affinity gives task i the
i-th run), the i-th runs one slot.  A slot is local when one domain holds
all its cores and is local to all its GPUs.

For each slot that is not local, it looks whether a local fit existed when
the job was allocated: a domain of some node (0..N-1) with as many free
cores and free local GPUs as a slot takes, given what the jobs running at
that instant held (their t_alloc and t_free) and what the job itself held
elsewhere.  Prints slots, local slots, their share, the slots spread while
a local fit existed (a placement that should have been local), and the
jobs read; --json prints the same as one object.  --domains prints the
XML's domains (each its cores and GPUs) and exits.
"""
import argparse
import json
import sys
import xml.etree.ElementTree as ET

GPU_BACKENDS = ("CUDA", "NVML", "OpenCL", "RSMI")


def bitmap(text):
    """An hwloc bitmap ("0x00ffffff,,0x0000000f", most significant 32-bit
    group first, an empty group zero; "0xf...f" an infinite head) as an int."""
    if not text:
        return 0
    text = text.strip()
    if text.startswith("0xf...f"):
        text = text[7:].lstrip(",")
        if not text:
            return (1 << 1024) - 1
    value = 0
    for group in text.split(","):
        g = group.strip()
        value = (value << 32) | (int(g, 16) if g and g != "0x" else 0)
    return value


def read_topology(path):
    """(cores, gpus, domains): cores[i] the processor set of core i; gpus[j]
    the set of domains GPU j is local to; domains a list of processor sets."""
    root = ET.parse(path).getroot()
    parent = {c: p for p in root.iter() for c in p}
    cores, numas, osdevs = [], [], []
    npci = 0
    for obj in root.iter("object"):
        t = obj.get("type")
        if t == "Core":
            cores.append(bitmap(obj.get("cpuset")))
        elif t == "NUMANode":
            s = bitmap(obj.get("cpuset"))
            if s and s not in numas:
                numas.append(s)
        elif t == "PCIDev":
            npci += 1
        elif t == "OSDev":
            osdevs.append(obj)
    gpus, seen = [], []
    for dev in osdevs if npci else []:
        backend = None
        for info in dev.findall("info"):
            if info.get("name") == "Backend":
                backend = info.get("value")
        if backend not in GPU_BACKENDS:
            continue
        pci, anc = None, parent.get(dev)
        while anc is not None and anc.get("type") != "PCIDev":
            anc = parent.get(anc)
        pci = anc
        if pci is not None and any(p is pci and b != backend for p, b in seen):
            continue
        seen.append((pci, backend))
        anc = parent.get(dev)
        while anc is not None and not anc.get("cpuset"):
            anc = parent.get(anc)
        where = bitmap(anc.get("cpuset")) if anc is not None else 0
        gpus.append({d for d, s in enumerate(numas) if where and s & where == s})
    return cores, gpus, numas


class Node:
    """One node's shape: each core's domain, each GPU's domains."""

    def __init__(self, path):
        cores, self.gpu_dom, self.domains = read_topology(path)
        self.core_dom = []
        for s in cores:
            d = [i for i, n in enumerate(self.domains) if s & n == s]
            self.core_dom.append(d[0] if d else None)

    def local(self, cores, gpus):
        """Is there one domain holding every core, local to every GPU?"""
        doms = {self.core_dom[c] if c < len(self.core_dom) else None for c in cores}
        if len(doms) != 1 or None in doms:
            return False if cores else self.gpus_share(gpus)
        d = doms.pop()
        return all(g < len(self.gpu_dom) and d in self.gpu_dom[g] for g in gpus)

    def gpus_share(self, gpus):
        common = None
        for g in gpus:
            s = self.gpu_dom[g] if g < len(self.gpu_dom) else set()
            common = s if common is None else common & s
        return bool(common)

    def fits(self, busy_cores, busy_gpus, c, g):
        """A domain with c free cores and g free GPUs local to it."""
        for d in range(len(self.domains)):
            fc = sum(1 for i, cd in enumerate(self.core_dom) if cd == d and i not in busy_cores)
            fg = sum(1 for j, gd in enumerate(self.gpu_dom) if d in gd and j not in busy_gpus)
            if fc >= c and fg >= g:
                return True
        return False


def idset(text):
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def ranks_of(R):
    """{rank: (cores, gpus)} of an R."""
    out = {}
    for e in R.get("execution", {}).get("R_lite", []):
        kids = e.get("children", {})
        for r in idset(e["rank"]):
            c, g = out.get(r, ([], []))
            out[r] = (c + idset(kids.get("core", "")), g + idset(kids.get("gpu", "")))
    return out


def slots_of(held, c, g):
    """The slots the job shell makes of a rank's cores and GPUs."""
    cores, gpus = sorted(held[0]), sorted(held[1])
    n = len(cores) // c if c else (len(gpus) // g if g else 0)
    return [(cores[i * c:(i + 1) * c], gpus[i * g:(i + 1) * g]) for i in range(n)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("xml")
    ap.add_argument("jobs", nargs="?")
    ap.add_argument("--nodes", type=int, default=0, help="nodes of the instance (0: the ranks seen)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--domains", action="store_true")
    a = ap.parse_args()
    node = Node(a.xml)
    if a.domains or not a.jobs:
        for d, s in enumerate(node.domains):
            cs = [i for i, cd in enumerate(node.core_dom) if cd == d]
            gs = [j for j, gd in enumerate(node.gpu_dom) if d in gd]
            print("domain %d: cores %s gpus %s" % (d, compact(cs), compact(gs) or "-"))
        return
    jobs = [json.loads(line) for line in open(a.jobs) if line.strip()]
    jobs.sort(key=lambda j: (j.get("t_alloc") or 0, j["id"]))
    nodes = a.nodes
    total = local = missed = 0
    for k, j in enumerate(jobs):
        c, g = j["slot"]
        held = ranks_of(j["R"])
        nodes = max(nodes, max(held) + 1 if held else 0)
        spread = []
        for r, h in held.items():
            for s in slots_of(h, c, g):
                total += 1
                if node.local(*s):
                    local += 1
                else:
                    spread.append((r, s))
        if spread and j.get("t_alloc") is not None:
            missed += fit_existed(node, jobs, k, j, held, spread, nodes, c, g)
    share = local / total if total else 1.0
    out = {"jobs": len(jobs), "slots": total, "local": local, "share": round(share, 4),
           "spread_with_local_fit": missed}
    if a.json:
        print(json.dumps(out))
    else:
        print("jobs %d slots %d local %d share %.4f spread-with-local-fit %d"
              % (len(jobs), total, local, share, missed))


def fit_existed(node, jobs, k, j, held, spread, nodes, c, g):
    """How many of job j's spread slots could have had a domain to
    themselves when j was allocated."""
    t = j["t_alloc"]
    busy = {}
    for m, o in enumerate(jobs):
        if o is j or o.get("t_alloc") is None:
            continue
        started = o["t_alloc"] < t or (o["t_alloc"] == t and m < k)
        ended = o.get("t_free") is not None and o["t_free"] <= t
        if started and not ended:
            for r, (cs, gs) in ranks_of(o["R"]).items():
                bc, bg = busy.setdefault(r, (set(), set()))
                bc.update(cs)
                bg.update(gs)
    for r, (cs, gs) in held.items():  # the job's own local slots hold theirs
        bc, bg = busy.setdefault(r, (set(), set()))
        spread_here = [s for rr, s in spread if rr == r]
        drop_c = {x for s in spread_here for x in s[0]}
        drop_g = {x for s in spread_here for x in s[1]}
        bc.update(x for x in cs if x not in drop_c)
        bg.update(x for x in gs if x not in drop_g)
    n = 0
    for _ in spread:
        for r in range(nodes):
            bc, bg = busy.get(r, (set(), set()))
            if node.fits(bc, bg, c, g):
                n += 1
                break
    return n


def compact(ids):
    ids = sorted(ids)
    out, i = [], 0
    while i < len(ids):
        j = i
        while j + 1 < len(ids) and ids[j + 1] == ids[j] + 1:
            j += 1
        out.append(str(ids[i]) if i == j else "%d-%d" % (ids[i], ids[j]))
        i = j + 1
    return ",".join(out)


if __name__ == "__main__":
    sys.exit(main())
