#!/usr/bin/env python3
"""The planar 2R robot of Negrean et al. (2024, Fig. 4) in Python with appell.

Derives its equations of motion by Gibbs-Appell and by Lagrange II, checks that every principle
gives the same equations, hands them to SymPy, simulates two seconds of free motion from the
model's initial state and plots the joint angles and the energies with matplotlib.

    PYTHONPATH=build/python python3 examples/python/planar_2r.py             # writes planar_2r.png
    PYTHONPATH=build/python python3 examples/python/planar_2r.py --no-plot   # no matplotlib needed
"""

import argparse
import pathlib

import numpy as np

import appell

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE.parent / "planar_2r.yaml"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="planar_2r.png", help="the plot (PNG)")
    parser.add_argument("--no-plot", action="store_true", help="skip the plot")
    args = parser.parse_args()

    model = appell.load(MODEL)
    print(model)

    # The equations by two principles: the same M and f, formed at different costs.
    ga = appell.derive(model, "gibbs-appell")
    la = appell.derive(model, "lagrange")
    print(ga.text())
    print("differentiations: Gibbs-Appell", ga.cost["differentiations"],
          "| Lagrange", la.cost["differentiations"])

    # Every principle, checked symbolically and at random states.
    for row in appell.verify(model):
        print(f"  {row['method']:13s} agrees={row['agrees']}  "
              f"differentiations={row['differentiations']}")

    # The same equations in SymPy, to continue there.
    M, f = ga.to_sympy()
    print("M[0, 0] in SymPy:", M[0, 0])

    # Numbers: M and f at a state, and the motion.
    compiled = ga.compile()
    Mq, fq = compiled.evaluate(model.q0, model.qd0)
    print("M(q0) =", Mq.tolist(), " qdd(q0) =", compiled.accelerations(model.q0, model.qd0))
    result = appell.simulate(model, t_end=2.0, output_step=0.005)
    print(f"simulated to t = {result.t[-1]}: {len(result.t)} rows, "
          f"{result.stats['steps']} steps; q(2) = {result.q[-1]}")
    assert result.complete, result.message
    assert np.allclose(result.E, result.T + result.V)

    if args.no_plot:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (angles, energies) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
    for j, name in enumerate(result.coordinates):
        angles.plot(result.t, result.q[:, j], label=name)
    angles.set_ylabel("joint angle [rad]")
    angles.legend()
    energies.plot(result.t, result.T, label="T")
    energies.plot(result.t, result.V, label="V")
    energies.plot(result.t, result.E, label="E = T + V")
    energies.set_xlabel("t [s]")
    energies.set_ylabel("energy [J]")
    energies.legend()
    fig.suptitle("planar 2R robot of Negrean et al. (2024), free motion under gravity")
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print("plot:", args.out)


if __name__ == "__main__":
    main()
