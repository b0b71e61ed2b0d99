#!/usr/bin/env python3
"""What the Python bindings cost, measured (issue 14; reported, never asserted).

1. Compiled.evaluate from Python against the same call made in C++ (Compiled._time_evaluate),
   one state per call and vectorised (k states per call), on the seed 000 robot and a chain.
2. Deriving the equations of an n-link planar chain of rods through Python (appell.derive, as
   formed and made readable) against SymPy's KanesMethod on the same chain, in the same run.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_bindings.py [--links 2,4,6,8]
"""

import argparse
import pathlib
import time
import timeit

import numpy as np

import appell

ROOT = pathlib.Path(__file__).resolve().parents[1]


def chain_yaml(n):
    lines = [f"name: chain-{n}", "parameters: {m: 1.0, l: 0.5, g: 9.81}",
             "coordinates: [%s]" % ", ".join(f"q{i + 1}" for i in range(n)), "frames:"]
    for i in range(n):
        parent, offset = ("world", "[0, 0, 0]") if i == 0 else (f"link{i}", "[l, 0, 0]")
        lines.append(f"  link{i + 1}: {{parent: {parent}, translation: {offset}, "
                     f"rotation: rot_z(q{i + 1})}}")
    lines.append("bodies:")
    for i in range(n):
        lines.append(f"  rod{i + 1}: {{frame: link{i + 1}, mass: m, com: [l/2, 0, 0], "
                     "inertia: {rod: {length: l, axis: x}}}")
    lines.append("gravity: [0, -g, 0]")
    return "\n".join(lines) + "\n"


def best(function, number, repeat=5):
    return min(timeit.repeat(function, number=number, repeat=repeat)) / number


def evaluate_overhead(name, model):
    compiled = appell.derive(model, raw=True).compile()
    n = model.dof
    q, qd = np.linspace(0.1, 0.5, n), np.linspace(-0.3, 0.3, n)
    cpp = min(compiled._time_evaluate(q, qd, 0.0, 200000) for _ in range(5))
    py = best(lambda: compiled.evaluate(q, qd), 20000)
    py_list = best(lambda: compiled.evaluate(q.tolist(), qd.tolist()), 20000)
    print(f"{name} (n = {n}, tape of {compiled.instructions} instructions)")
    print(f"  C++ evaluate                         {cpp * 1e6:8.3f} us per state")
    print(f"  Python evaluate(q, qd), numpy        {py * 1e6:8.3f} us per call "
          f"(overhead {(py - cpp) * 1e6:.3f} us)")
    print(f"  Python evaluate(q, qd), lists        {py_list * 1e6:8.3f} us per call")
    for k in (10, 1000, 100000):
        Q = np.tile(q, (k, 1))
        QD = np.tile(qd, (k, 1))
        per_state = best(lambda: compiled.evaluate(Q, QD), max(1, 100000 // k // 10)) / k
        print(f"  Python evaluate, k = {k:6d} states   {per_state * 1e6:8.3f} us per state "
              f"(x{per_state / cpp:.2f} the C++ call)")
    acc = best(lambda: compiled.accelerations(q, qd), 20000)
    print(f"  Python accelerations(q, qd)          {acc * 1e6:8.3f} us per call")


def sympy_kane_chain(n):
    import sympy
    from sympy.physics.mechanics import (KanesMethod, Point, ReferenceFrame, RigidBody,
                                         dynamicsymbols, inertia)

    q = dynamicsymbols(f"q1:{n + 1}")
    u = dynamicsymbols(f"u1:{n + 1}")
    m, l, g = sympy.symbols("m l g")
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    frames, bodies, loads = [N], [], []
    joint = O
    for i in range(n):
        frame = frames[-1].orientnew(f"A{i + 1}", "Axis", (q[i], frames[-1].z))
        frame.set_ang_vel(frames[-1], u[i] * frames[-1].z)
        centre = joint.locatenew(f"G{i + 1}", l / 2 * frame.x)
        centre.v2pt_theory(joint, N, frame)
        end = joint.locatenew(f"J{i + 1}", l * frame.x)
        end.v2pt_theory(joint, N, frame)
        rod = m * l**2 / 12
        bodies.append(RigidBody(f"rod{i + 1}", centre, frame, m,
                                (inertia(frame, 0, rod, rod), centre)))
        loads.append((centre, -m * g * N.y))
        frames.append(frame)
        joint = end
    kane = KanesMethod(N, q_ind=q, u_ind=u, kd_eqs=[q[i].diff() - u[i] for i in range(n)])
    kane.kanes_equations(bodies, loads)
    return kane.mass_matrix, kane.forcing


def derive_times(links):
    sympy_kane_chain(1)  # imports SymPy mechanics and warms its caches before timing
    appell.derive(appell.Model.from_yaml(chain_yaml(1)))
    print("\nderiving an n-link planar chain: appell through Python vs SymPy KanesMethod")
    print(f"{'n':>3} {'appell raw':>12} {'appell readable':>16} {'SymPy Kane':>12} "
          f"{'Kane / raw':>11} {'Kane / readable':>16}")
    for n in links:
        model = appell.Model.from_yaml(chain_yaml(n))
        start = time.perf_counter()
        appell.derive(model, "gibbs-appell", raw=True)
        raw = time.perf_counter() - start
        start = time.perf_counter()
        appell.derive(model, "gibbs-appell")
        readable = time.perf_counter() - start
        start = time.perf_counter()
        sympy_kane_chain(n)
        kane = time.perf_counter() - start
        print(f"{n:3d} {raw * 1e3:9.2f} ms {readable * 1e3:13.2f} ms {kane * 1e3:9.1f} ms "
              f"{kane / raw:10.0f}x {kane / readable:15.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--links", default="2,4,6,8", help="chain lengths (default 2,4,6,8)")
    args = parser.parse_args()
    evaluate_overhead("planar 2R robot (seed 000)", appell.load(ROOT / "examples" /
                                                                "planar_2r.yaml"))
    evaluate_overhead("10-link chain", appell.Model.from_yaml(chain_yaml(10)))
    derive_times([int(n) for n in args.links.split(",")])


if __name__ == "__main__":
    main()
