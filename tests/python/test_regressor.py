"""appell.regressor and appell.base_parameters: Y @ pi is the inverse dynamics (of the model
without loads: gravity is in Y, the loads are not), Y_b @ beta is the same, the numbers are the
command line's, and the base parameters of a planar arm are the classical ones, as SymPy
expressions."""

import json
import os
import subprocess

import numpy as np
import pytest
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
        Y = appell.regressor(model, q, qd, qdd).Y
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


def free_of_loads(path):
    """The model of `path` without its loads, whose inverse dynamics Y @ pi equals."""
    text = path.read_text()
    return appell.Model.from_yaml(text.split("loads:")[0]) if "loads:" in text else \
        appell.load(str(path))


def test_regressor_result_holds_names_values_and_the_base_and_agrees_with_the_cli():
    path = EXAMPLES / "planar_2r.yaml"
    model = appell.load(str(path))
    q, qd, qdd = [0.3, -0.5], [1.0, 0.25], [1.0, 2.0]
    r = appell.regressor(model, q=q, qd=qd, qdd=qdd, base=True, values={"l": 0.7})
    assert r.parameters[:3] == ["m_rod1", "mx_rod1", "my_rod1"]
    assert r.coordinates == ["q1", "q2"]
    assert r.Y.shape == (2, 20) and r.values.shape == (20,)
    assert r.kept == ["mx_rod1", "my_rod1", "Izz_rod1", "mx_rod2", "my_rod2", "Izz_rod2"]
    assert r.base_parameters[0] == "mx_rod1R"
    assert r.base_expressions[0] == "l*m_rod2 + mx_rod1"
    assert r.Y_b.shape == (2, 6)
    np.testing.assert_allclose(r.Y_b @ r.base_values, r.Y @ r.values, rtol=1e-9, atol=1e-9)
    assert r.roles[r.parameters.index("m_rod2")] == "grouped"
    dynamics = appell.Dynamics(free_of_loads(path), values={"l": 0.7}, jit=False)
    np.testing.assert_allclose(r.Y @ r.values, dynamics.inverse_dynamics(q, qd, qdd),
                               rtol=1e-9, atol=1e-9)
    # The command line's JSON: the same numbers under the same names.
    out = subprocess.run([os.environ.get("APPELL_CLI", "appell"), "regressor", str(path),
                          "--q", "0.3,-0.5", "--qd", "1,0.25", "--qdd", "1,2", "--base",
                          "--set", "l=0.7", "--json"],
                         check=True, capture_output=True, text=True).stdout
    j = json.loads(out)
    assert [p["name"] for p in j["parameters"]] == r.parameters
    np.testing.assert_allclose(np.array(j["regressor"]), r.Y, rtol=0, atol=0)
    np.testing.assert_allclose([p["number"] for p in j["parameters"]], r.values, rtol=0, atol=0)
    np.testing.assert_allclose(np.array(j["base"]["regressor"]), r.Y_b, rtol=0, atol=0)
    assert [p["column"] for p in j["base"]["parameters"]] == r.kept
    assert r.text.startswith("regressor of planar-2r at a state")
    # Without base: the base fields are None.
    plain = appell.regressor(model, q, qd, qdd)
    assert plain.kept is None and plain.Y_b is None
    np.testing.assert_array_equal(plain.Y, appell.regressor(model, q, qd, qdd).Y)


def test_regressor_of_a_robot_is_its_inverse_dynamics():
    robot = appell.load(str(EXAMPLES / "urdf" / "ur5_robot.urdf"))
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.uniform(-1.5, 1.5, (3, 6))
    r = appell.regressor(robot, q, qd, qdd, base=True)
    assert r.Y.shape == (6, 70)
    tau = appell.Dynamics(robot, jit=False).inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(r.Y @ r.values, tau, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(r.Y_b @ r.base_values, tau, rtol=1e-8, atol=1e-8)
    # The base count is the rank of Y stacked over random states (columns of unit norm).
    W = np.vstack([appell.regressor(robot, *rng.uniform(-1.5, 1.5, (3, 6))).Y
                   for _ in range(30)])
    norms = np.linalg.norm(W, axis=0)
    live = norms > 1e-10 * norms.max()
    assert len(r.kept) == np.linalg.matrix_rank(W[:, live] / norms[live], tol=1e-7)


def test_regressor_refusals_are_the_command_lines():
    model = appell.load(str(EXAMPLES / "planar_2r.yaml"))
    with pytest.raises(ValueError, match="qdd"):
        appell.regressor(model, [0, 0], [0, 0], [1, 2, 3])
    with pytest.raises(TypeError, match="base"):
        appell.regressor(model, [0, 0], [0, 0], [1, 2], base="yes")
    box = appell.load(str(EXAMPLES / "speeds" / "free_box_quaternion.yaml"))
    with pytest.raises(appell.ModelError, match="generalized speeds"):
        appell.regressor(box, [0] * 7, [0] * 7, [0] * 7)
