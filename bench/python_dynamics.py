#!/usr/bin/python3
"""appell.Dynamics from Python (issue 26; reported, never asserted): the Panda's q'' for one
state per call and for 10^4 states in one call, by the JIT and by the recursions interpreted,
against the formed equations' Compiled (the tape of M and f); and the time to build each.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_dynamics.py
"""

import pathlib
import time
import timeit

import numpy as np

import appell

ROOT = pathlib.Path(__file__).resolve().parents[1]


def per_call(function, number):
    return min(timeit.repeat(function, number=number, repeat=5)) / number


def main():
    model = appell.load(ROOT / "examples" / "urdf" / "panda.urdf")
    rng = np.random.default_rng(26)
    q1, qd1 = rng.uniform(-1, 1, 9), rng.uniform(-1, 1, 9)
    q, qd = rng.uniform(-1, 1, (10000, 9)), rng.uniform(-1, 1, (10000, 9))
    start = time.perf_counter()
    compiled = appell.derive(model).compile()
    built = time.perf_counter() - start
    rows = [("formed equations (tape)", built, per_call(lambda: compiled.accelerations(q1, qd1),
                                                         2000),
             per_call(lambda: compiled.accelerations(q, qd), 1))]
    for jit in (True, False):
        start = time.perf_counter()
        d = appell.Dynamics(model, jit=jit)
        built = time.perf_counter() - start
        rows.append(("Dynamics (%s)" % d.kind, built,
                     per_call(lambda: d.accelerations(q1, qd1), 20000),
                     per_call(lambda: d.accelerations(q, qd), 3)))
    print("%-26s %10s %14s %16s" % ("Panda accelerations", "build s", "one state us",
                                    "10^4 states ms"))
    for name, built, one, batch in rows:
        print("%-26s %10.3f %14.2f %16.2f" % (name, built, one * 1e6, batch * 1e3))


if __name__ == "__main__":
    main()
