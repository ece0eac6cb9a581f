#!/usr/bin/env python3
"""thread_cpu.py: the CPU seconds each thread of a Flux instance used,
by the thread's name, summed over the instance's processes.

    python3 bench/flux/thread_cpu.py OUT &
    SCHEDS=grove-easy JOBS=20000 bench/flux_soak.sh
    wait; cat OUT

Every second it reads /proc/PID/task/TID/stat of each process whose
command line names flux (the brokers, their module threads, the job
validator) or soak.py (the driver), and keeps each thread's highest
CPU time (user and system); a thread that ends (a module removed) keeps
what it had used at the last reading.  It stops once no such process is
left (after four seconds of none, having seen one) and writes to OUT the
total and one line per (process kind, thread name), largest first.  On
a machine whose CPUs the instance keeps busy, the total is about the
CPUs times the wall time, and the lines say which threads took it.
"""
import collections
import os
import sys
import time

out = sys.argv[1]
hz = os.sysconf("SC_CLK_TCK")
used = {}
seen, idle = False, 0
while True:
    found = False
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read()
            tids = os.listdir("/proc/%s/task" % pid)
        except OSError:
            continue
        if (b"flux" not in cmd and b"soak.py" not in cmd) or b"thread_cpu" in cmd:
            continue
        found = True
        kind = "broker" if b"flux-broker" in cmd else ("driver" if b"soak.py" in cmd else "other")
        for tid in tids:
            try:
                with open("/proc/%s/task/%s/stat" % (pid, tid)) as f:
                    st = f.read()
            except OSError:
                continue
            name = st[st.index("(") + 1:st.rindex(")")]
            fields = st[st.rindex(")") + 2:].split()
            cpu = (int(fields[11]) + int(fields[12])) / hz
            key = (kind, name, pid, tid)
            used[key] = max(used.get(key, 0.0), cpu)
    if found:
        seen, idle = True, 0
    elif seen:
        idle += 1
        if idle > 3:
            break
    time.sleep(1)
by_name = collections.Counter()
for (kind, name, _, _), cpu in used.items():
    by_name[(kind, name)] += cpu
with open(out, "w") as f:
    f.write("total %.1f\n" % sum(by_name.values()))
    for (kind, name), cpu in by_name.most_common():
        f.write("%-7s %-18s %8.1f\n" % (kind, name, cpu))
