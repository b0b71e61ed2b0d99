"""appell.simulate (against `appell simulate`'s CSV), inverse, statics, codegen, fem_modes, and
Ctrl-C during a long derivation."""

import csv
import os
import signal
import threading
import time

import numpy as np
import pytest

import appell
from conftest import chain_yaml


@pytest.fixture(scope="module")
def robot(examples):
    return appell.load(examples / "planar_2r.yaml")


def test_simulate_gives_numpy_arrays(robot):
    r = appell.simulate(robot, 0.5, output_step=0.05)
    assert isinstance(r, appell.SimulationResult)
    assert r.complete is True and r.message == ""
    assert r.t.shape == (11,) and r.t.dtype == np.float64
    assert r.q.shape == (11, 2) and r.qd.shape == (11, 2) and r.qdd.shape == (11, 2)
    assert r.T.shape == r.V.shape == r.E.shape == (11,)
    assert r.lam.shape == (11, 0)
    assert r.coordinates == ["q1", "q2"]
    np.testing.assert_allclose(r.E, r.T + r.V)
    np.testing.assert_array_equal(r.q[0], robot.q0)
    assert r.stats["steps"] > 0


def test_simulate_agrees_with_the_command_line_csv(cli, examples, tmp_path, robot):
    out = tmp_path / "robot.csv"
    cli("simulate", examples / "planar_2r.yaml", "--t-end", "1", "--q0", "0.3,-0.5",
        "--set", "M=2", "--output-step", "0.1", "--out", out)
    with open(out) as file:
        rows = [row for row in csv.reader(file) if row and not row[0].startswith("#")]
    header, data = rows[0], np.array(rows[1:], dtype=float)
    assert header[:5] == ["t", "q1", "q2", "dot(q1)", "dot(q2)"]
    r = appell.simulate(robot, 1.0, q0=[0.3, -0.5], output_step=0.1, values={"M": 2})
    np.testing.assert_allclose(r.t, data[:, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.q, data[:, 1:3], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(r.qd, data[:, 3:5], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.c_[r.T, r.V, r.E], data[:, 5:8], rtol=1e-12, atol=1e-12)


def test_simulate_with_constraints_inputs_and_equations(examples):
    slider = appell.load(examples / "slider_crank.yaml")
    r = appell.simulate(slider, 0.2, output_step=0.1)
    m = len(slider.constraints)
    assert r.lam.shape == (3, m) and r.multipliers == ["lambda_" + c for c in slider.constraints]
    cart = appell.load(examples / "spring_damper_cart.yaml")
    eq = appell.derive(cart, "lagrange", raw=True)
    a = appell.simulate(eq, 0.3, inputs={"u": "sin(2*t)"}, integrator="adams")
    b = appell.simulate(cart, 0.3, values={"u": "sin(2*t)"})
    np.testing.assert_allclose(a.q, b.q, rtol=1e-5, atol=1e-6)
    assert a.stats["conservative"] is False


def test_an_early_stop_is_a_result_not_an_exception():
    b = appell.ModelBuilder("blow-up")
    b.coordinate("x", 2)
    b.frame("slider", translation=["x", 0, 0])
    b.particle("p", "slider", mass=1)
    b.generalized_force("x", "x^3")  # x'' = x^3 leaves every bound before t = 1
    r = appell.simulate(b.build(), 5.0)
    assert r.complete is False
    assert r.message.startswith("integration stopped at t = ")
    assert 0.5 < r.t[-1] < 1.0 and r.q.shape == (len(r.t), 1)
    assert r.stats["t_reached"] == r.t[-1]


def test_bad_simulation_options(robot):
    with pytest.raises(appell.ModelError) as error:
        appell.simulate(robot, -1.0)
    assert error.value.file == "t_end"
    with pytest.raises(ValueError, match="^q0: expected 2 values"):
        appell.simulate(robot, 1.0, q0=[1, 2, 3])
    with pytest.raises(ValueError, match="^integrator: unknown"):
        appell.simulate(robot, 1.0, integrator="rk4")
    with pytest.raises(TypeError, match="^t_end: "):
        appell.simulate(robot, "1")
    with pytest.raises(ValueError, match="^rtol: not a finite"):
        appell.simulate(robot, 1.0, rtol=float("nan"))
    with pytest.raises(TypeError, match=r"^inputs\['u'\]: "):
        appell.simulate(robot, 1.0, inputs={"u": 1.0})
    with pytest.raises(appell.ModelError) as error:
        appell.simulate(robot, 1.0, values={"u": 1.0})
    assert error.value.name == "u"


def test_inverse_dynamics_three_ways(robot, tmp_path):
    r = appell.inverse(robot, "q1 = sin(t); q2 = 0.5*t^2", t_end=1.0, output_step=0.25)
    assert isinstance(r, appell.InverseResult)
    assert r.t.shape == (5,) and r.Q.shape == (5, 2)
    np.testing.assert_allclose(r.t, [0, 0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(r.q[:, 0], np.sin(r.t), rtol=1e-14)
    np.testing.assert_allclose(r.qdd[:, 1], 1.0)
    # Q = M q'' - f from the compiled equations
    c = appell.derive(robot).compile()
    M, f = c.evaluate(r.q, r.qd, r.t)
    np.testing.assert_allclose(r.Q, np.einsum("kij,kj->ki", M, r.qdd) - f, rtol=1e-12,
                               atol=1e-12)
    arrays = appell.inverse(robot, t=r.t, q=r.q, qd=r.qd, qdd=r.qdd)
    np.testing.assert_allclose(arrays.Q, r.Q, rtol=1e-14)
    path = tmp_path / "motion.csv"
    with open(path, "w") as file:
        file.write("t,q1,q2,dot(q1),dot(q2),ddot(q1),ddot(q2)\n")
        for k in range(len(r.t)):
            file.write(",".join(repr(float(x)) for x in
                                [r.t[k], *r.q[k], *r.qd[k], *r.qdd[k]]) + "\n")
    from_csv = appell.inverse(robot, from_csv=str(path))
    np.testing.assert_allclose(from_csv.Q, r.Q, rtol=1e-14)
    with pytest.raises(ValueError, match="^trajectory: give exactly one"):
        appell.inverse(robot)
    with pytest.raises(ValueError, match="^t_end: required"):
        appell.inverse(robot, "q1 = t; q2 = t")
    with pytest.raises(appell.ModelError) as error:
        appell.inverse(robot, "q1 = t", t_end=1.0, output_step=0.5)
    assert error.value.file == "trajectory"


def test_statics_finds_the_equilibria(examples):
    pendulum = appell.Model.from_yaml(chain_yaml(1))
    r = appell.statics(pendulum)
    assert isinstance(r, appell.EquilibriaResult)
    assert len(r.generalized_forces) == 1 and "cos(q1)" in r.generalized_forces[0]
    angles = sorted(round(float(e["q"][0]), 6) for e in r.equilibria)
    assert angles == [round(-np.pi / 2, 6), round(np.pi / 2, 6)]
    stable = [e for e in r.equilibria if e["stable"]]
    assert len(stable) == 1 and stable[0]["q"][0] == pytest.approx(-np.pi / 2)
    assert stable[0]["q"].dtype == np.float64
    named = appell.statics(pendulum, guesses={"q1": -1.5}, random_starts=0)
    assert len(named.equilibria) >= 1
    listed = appell.statics(pendulum, guesses=[[1.5]], values={"g": 1.0})
    assert len(listed.equilibria) == 2
    with pytest.raises(ValueError, match="^guesses: unknown coordinate"):
        appell.statics(pendulum, guesses={"x": 1})


def test_statics_without_an_equilibrium_is_a_computation_error():
    b = appell.ModelBuilder("pushed")
    b.coordinate("x")
    b.frame("slider", translation=["x", 0, 0])
    b.particle("p", "slider", mass=1)
    b.force([1, 0, 0], on="slider")
    with pytest.raises(appell.ComputationError):
        appell.statics(b.build(), random_starts=2)


def test_codegen_writes_a_header(robot):
    header = appell.codegen(robot, namespace="robots::arm")
    assert "namespace robots::arm" in header or "namespace robots" in header
    assert "mass_matrix" in header and "inverse_dynamics" in header
    from_equations = appell.codegen(appell.derive(robot, "lagrange", raw=True),
                                    values={"M": 2.0})
    assert "planar_2r" in from_equations
    with pytest.raises(ValueError, match="^namespace: "):
        appell.codegen(robot, namespace="not a name")


def test_fem_modes(examples):
    model = appell.load(examples / "fem" / "cantilever_box.yaml")
    r = appell.fem_modes(model, modes=3)
    assert isinstance(r, appell.ModesResult)
    assert r.frequencies_hz.shape == (3,) and np.all(np.diff(r.frequencies_hz) >= 0)
    assert r.shapes.shape == (r.dofs, 3)
    assert r.body == model.flexible_bodies[0]
    with pytest.raises(ValueError, match="^modes: "):
        appell.fem_modes(model, modes=0)
    with pytest.raises(ValueError, match="^body: "):
        appell.fem_modes(model, body="nothing")
    with pytest.raises(appell.ModelError):
        appell.fem_modes(appell.Model.from_yaml(chain_yaml(1)))


def interrupted_after(seconds, call):
    """Runs call() with SIGINT sent after `seconds`; returns how long until KeyboardInterrupt."""
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            call()
    finally:
        timer.cancel()
        timer.join()
    return time.monotonic() - start


def test_ctrl_c_stops_a_long_derivation():
    """The derivation releases the GIL (the timer thread runs) and stops on SIGINT."""
    model = appell.Model.from_yaml(chain_yaml(20))
    assert interrupted_after(0.5, lambda: appell.derive(model, "lagrange")) < 5.0  # minutes
    # everything still works afterwards
    assert appell.derive(appell.Model.from_yaml(chain_yaml(2))).dof == 2


def test_ctrl_c_stops_a_long_simulation():
    model = appell.Model.from_yaml(chain_yaml(3))
    elapsed = interrupted_after(0.5, lambda: appell.simulate(model, 1e6, output_step=10.0))
    assert elapsed < 5.0
    assert appell.simulate(model, 0.1).complete


def test_simulate_and_inverse_by_the_compiled_code_agree_with_the_tape(robot):
    import shutil
    have_cc = shutil.which(os.environ.get("CC", "cc")) is not None
    options = dict(output_step=0.05, rtol=1e-10, atol=1e-10)
    # The formed equations: compiled, or their tape.
    compiled = appell.simulate(robot, 0.5, method="gibbs-appell", **options)
    tape = appell.simulate(robot, 0.5, method="gibbs-appell", jit=False, **options)
    assert tape.stats["evaluator"] == "tape" and tape.stats["method"] == "gibbs-appell"
    assert compiled.stats["evaluator"] == ("jit" if have_cc else "tape")
    np.testing.assert_allclose(compiled.q, tape.q, rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(compiled.qdd, tape.qdd, rtol=1e-6, atol=1e-7)
    # The model without a method: the recursions' compiled code, or the recursions interpreted.
    fast = appell.simulate(robot, 0.5, **options)
    interpreted = appell.simulate(robot, 0.5, jit=False, **options)
    assert fast.stats["method"] == interpreted.stats["method"] == "recursions"
    assert interpreted.stats["evaluator"] == "recursions"
    assert fast.stats["evaluator"] == ("jit" if have_cc else "recursions")
    for r in (fast, interpreted):
        np.testing.assert_allclose(r.q, tape.q, rtol=1e-7, atol=1e-8)
        np.testing.assert_allclose(r.qdd, tape.qdd, rtol=1e-6, atol=1e-7)
    motion = dict(trajectory="q1 = sin(t); q2 = t^2", t_end=1.0, output_step=0.1)
    a = appell.inverse(robot, **motion)
    b = appell.inverse(robot, **motion, jit=False)
    c = appell.inverse(robot, **motion, method="gibbs-appell", jit=False)
    assert a.method == b.method == "recursions" and c.method == "gibbs-appell"
    np.testing.assert_allclose(a.Q, b.Q, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(a.Q, c.Q, rtol=1e-10, atol=1e-10)


# ---------------------------------------------------------------------------------------------
# Generalized speeds and quaternions (speeds:, rot_quat)


@pytest.fixture(scope="module")
def free_box(examples):
    return appell.load(examples / "speeds" / "free_box_quaternion.yaml")


def test_a_model_with_speeds_derives_eulers_equations(free_box):
    eq = appell.derive(free_box)
    assert eq.speeds == ["vx", "vy", "vz", "w1", "w2", "w3"]
    assert eq.method == "gibbs-appell" and not eq.minimal
    assert "in the speeds (vx, vy, vz, w1, w2, w3)" in repr(eq)
    # Euler's equation about x: I1 w1' = (I2 - I3) w2 w3.
    assert "eq 4 (w1): 1/12*m*(b^2 + c^2)*dot(w1) = 1/12*m*(c^2 - b^2)*w2*w3" in eq.text()
    assert eq.cost["differentiations"] > 0
    kane = appell.derive(free_box, "dalembert")
    assert kane.method == "dalembert" and kane.speeds == eq.speeds
    with pytest.raises(ValueError, match="generalized speeds"):
        eq.compile()
    with pytest.raises(appell.ModelError):
        appell.derive(free_box, "lagrange")


def test_simulate_in_the_speeds_keeps_the_invariants_of_a_free_body(free_box):
    # Spinning mostly about the intermediate axis: the box flips, yet its kinetic energy
    # ½ Σ I_i w_i² and the length of its angular momentum |I w| (in its own axes) stay, and the
    # quaternion stays of unit length.
    u0 = [0.0, 0.0, 0.0, 0.02, 3.0, 0.02]
    r = appell.simulate(free_box, 5.0, u0=u0, rtol=1e-10, atol=1e-12, output_step=0.05)
    assert r.complete and r.speeds == ["vx", "vy", "vz", "w1", "w2", "w3"]
    assert r.u.shape == (len(r.t), 6) and r.udot.shape == r.u.shape
    assert np.allclose(r.u[0], u0)
    m, a, b, c = 2.0, 0.3, 0.2, 0.1
    inertia = m / 12 * np.array([b * b + c * c, a * a + c * c, a * a + b * b])
    w = r.u[:, 3:]
    energy = 0.5 * (inertia * w * w).sum(axis=1)
    momentum = np.linalg.norm(inertia * w, axis=1)
    assert np.max(np.abs(energy - energy[0])) < 1e-8 * energy[0]
    assert np.max(np.abs(momentum - momentum[0])) < 1e-8 * momentum[0]
    assert np.allclose(r.T, energy, rtol=1e-9)
    assert np.max(np.abs(w[:, 1] - 3.0)) > 1.0  # it did flip
    assert np.allclose(np.linalg.norm(r.q[:, 3:7], axis=1), 1.0, atol=1e-9)
    # u' is Euler's right-hand side at every row.
    euler = np.stack([(inertia[1] - inertia[2]) * w[:, 1] * w[:, 2] / inertia[0],
                      (inertia[2] - inertia[0]) * w[:, 2] * w[:, 0] / inertia[1],
                      (inertia[0] - inertia[1]) * w[:, 0] * w[:, 1] / inertia[2]], axis=1)
    assert np.allclose(r.udot[:, 3:], euler, atol=1e-9)


def test_simulate_in_the_speeds_agrees_with_the_command_line(cli, examples, tmp_path, free_box):
    out = tmp_path / "box.csv"
    cli("simulate", examples / "speeds" / "free_box_quaternion.yaml", "--t-end", "1",
        "--u0", "0,0,0,0.5,1,2", "--output-step", "0.1", "--out", out)
    with open(out) as f:
        rows = [row for row in csv.DictReader(line for line in f if not line.startswith("#"))]
    r = appell.simulate(free_box, 1.0, u0=[0, 0, 0, 0.5, 1, 2], output_step=0.1)
    assert len(rows) == len(r.t)
    for k, row in enumerate(rows):
        for j, name in enumerate(r.speeds):
            assert float(row[name]) == pytest.approx(r.u[k, j], rel=1e-9, abs=1e-12)


def test_u0_is_checked(free_box, robot):
    with pytest.raises(ValueError, match="u0"):
        appell.simulate(free_box, 1.0, u0=[1, 2, 3])
    with pytest.raises(ValueError, match="u0"):
        appell.simulate(robot, 1.0, u0=[0, 0])
    with pytest.raises(ValueError, match="u0"):
        appell.simulate(free_box, 1.0, u0=[0] * 6, qd0=[0] * 7)
    plain = appell.simulate(robot, 0.1)
    assert plain.u.shape == (len(plain.t), 0) and plain.speeds == []


def test_simulate_in_the_speeds_with_a_constraint_keeps_it_and_gives_its_multiplier(examples):
    # A quaternion body whose tip slides in a slot (a closed loop): the slot's multiplier is a
    # column, the constraint holds along the run, and the slot does no work.
    box = appell.load(examples / "speeds" / "slotted_ball_joint.yaml")
    r = appell.simulate(box, 2.0, u0=[0, 0.3, 1.5], rtol=1e-10, atol=1e-10, output_step=0.1)
    assert r.complete, r.message
    assert r.multipliers == ["lambda_slot"]
    assert r.lam.shape == (21, 1)
    assert np.abs(r.lam).max() > 0.05
    e0, e1, e2, e3 = r.q.T
    assert np.abs(e2 * e3 - e0 * e1).max() < 1e-10
    assert np.abs(r.E - r.E[0]).max() < 1e-7
    assert r.stats["max_violation"][0] < 1e-10
