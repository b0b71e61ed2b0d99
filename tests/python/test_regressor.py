"""appell.regressor and appell.base_parameters: Y @ pi is the inverse dynamics (of the model
without loads: gravity is in Y, the loads are not), Y_b @ beta is the same, and the base
parameters of a planar arm are the classical ones, as SymPy expressions."""

import json
import os
import subprocess

import numpy as np
import sympy

import appell
from conftest import EXAMPLES


def standard_values(path, names):
    """The standard parameters' numbers from the model's own values (m, m*c, the inertia about
    the frame's origin), as `appell regressor --format json` prints them."""
    out = subprocess.run([os.environ.get("APPELL_CLI", "appell"), "regressor", str(path),
                          "--format", "json"], check=True, capture_output=True, text=True).stdout
    numbers = {p["name"]: p["number"] for p in json.loads(out)["parameters"]}
    return np.array([numbers[n] for n in names])


def test_y_pi_is_the_inverse_dynamics_without_loads_and_y_b_beta_too():
    model = appell.load(str(EXAMPLES / "planar_2r.yaml"))
    base = appell.base_parameters(model)
    pi = standard_values(EXAMPLES / "planar_2r.yaml", base["standard"])
    free = appell.Model.from_yaml((EXAMPLES / "planar_2r.yaml").read_text().split("loads:")[0])
    dynamics = appell.Dynamics(free, jit=False)
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 2))
        Y = appell.regressor(model, q, qd, qdd)
        assert Y.shape == (2, 20)
        tau = dynamics.inverse_dynamics(q, qd, qdd)
        np.testing.assert_allclose(Y @ pi, tau, rtol=1e-9, atol=1e-9)
        columns = [base["standard"].index(k) for k in base["kept"]]
        beta = np.array([base["values"][k] for k in base["kept"]])
        np.testing.assert_allclose(Y[:, columns] @ beta, tau, rtol=1e-8, atol=1e-8)


def test_base_parameters_are_sympy_expressions_of_the_classical_grouping():
    model = appell.load(str(EXAMPLES / "planar_2r.yaml"))
    base = appell.base_parameters(model)
    assert len(base["kept"]) == 6
    l, Izz1, m2 = sympy.symbols("l Izz_rod1 m_rod2")
    assert sympy.simplify(base["base"]["Izz_rod1"] - (Izz1 + l**2 * m2)) == 0
    assert base["roles"][base["standard"].index("m_rod1")] == "vanishes"
    assert all(base["exact"].values())
