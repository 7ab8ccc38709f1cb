#!/usr/bin/env python3
"""The workloads of engine/tests/data/traces/, run for real on CPU 0 while
scripts/record-traces records them with `perf sched record`.

  nice      two CPU hogs, nice 0 and nice 5
  periodic  a task that sleeps 10 ms and runs 2 ms, beside two hogs
  pingpong  two processes passing a byte through two pipes: the first
            runs 200 us per round, the second 100 us

Each process pins itself to CPU 0 and stops after the given seconds.
CPU time is spun as schedlab validate's workers spin it (validate/src/
worker.rs, OwnClock): the sum of the short gaps between CLOCK_MONOTONIC
reads, which the vDSO answers without a system call, so a spinning task
is preempted where the model's `run D` is (at the tick or a wake-up).
Polling the thread's CPU clock instead (thread_time_ns()) enters the
kernel on every read: task_sched_runtime() calls update_curr(), which
ends a used-up slice at once, so the recorded hogs switched every 1.4 ms
(the base slice) rather than at the 4 ms tick."""
import os
import sys
import time


# A gap between two clock reads longer than this is time switched out
# (validate/src/worker.rs, SWITCHED_OUT_NS).
SWITCHED_OUT_NS = 30_000


def spin(ns):
    own, last = 0, time.monotonic_ns()
    while own < ns:
        now = time.monotonic_ns()
        if now - last < SWITCHED_OUT_NS:
            own += now - last
        last = now


def child(fn, *args, close=()):
    pid = os.fork()
    if pid == 0:
        try:
            for fd in close:
                os.close(fd)
            os.sched_setaffinity(0, {0})
            fn(*args)
        finally:
            os._exit(0)
    return pid


def hog(nice, end):
    os.nice(nice)
    while time.monotonic() < end:
        spin(1_000_000)


def periodic(end):
    while time.monotonic() < end:
        time.sleep(0.010)
        spin(2_000_000)


def ping(r, w, end):
    while time.monotonic() < end:
        spin(200_000)
        os.write(w, b"x")
        if not os.read(r, 1):
            return


def pong(r, w, end):
    while True:
        if not os.read(r, 1):
            return
        spin(100_000)
        os.write(w, b"x")


def main():
    kind, secs = sys.argv[1], float(sys.argv[2])
    end = time.monotonic() + secs
    pids = []
    if kind == "nice":
        pids += [child(hog, 0, end), child(hog, 5, end)]
    elif kind == "periodic":
        pids += [child(periodic, end), child(hog, 0, end), child(hog, 0, end)]
    elif kind == "pingpong":
        a_r, b_w = os.pipe()
        b_r, a_w = os.pipe()
        pids.append(child(pong, b_r, b_w, end + 1, close=(a_r, a_w)))
        pids.append(child(ping, a_r, a_w, end, close=(b_r, b_w)))
        for fd in (a_r, b_w, b_r, a_w):
            os.close(fd)
    else:
        sys.exit(f"unknown workload {kind}")
    for p in pids:
        os.waitpid(p, 0)


main()
