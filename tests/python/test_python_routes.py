"""How the package reaches its numbers for a Model, as the command line does: without a method,
simulate, inverse, codegen and linearize go through the recursions where they cover the model
(no equations formed: stats["method"] / .method say "recursions") and through the Gibbs-Appell
equations otherwise; a method asks for that principle's equations, formed. Each route against the
other (the same motion to integration accuracy, the same forces to rounding) and against the
command line's output."""

import csv
import os
import shutil

import numpy as np
import pytest

import appell
from conftest import chain_yaml

HAVE_CC = shutil.which(os.environ.get("CC", "cc")) is not None


def read_csv(path):
    with open(path) as f:
        rows = [row for row in csv.reader(f) if row and not row[0].startswith("#")]
    return rows[0], np.array(rows[1:], dtype=float)


@pytest.mark.parametrize("path", ["planar_2r.yaml", "slider_crank.yaml", "bricard.yaml",
                                  "urdf/two_link.urdf"])
def test_simulate_without_a_method_follows_the_formed_route(examples, path):
    model = appell.load(examples / path)
    options = dict(output_step=0.05, rtol=1e-11, atol=1e-11)
    fast = appell.simulate(model, 0.5, **options)
    formed = appell.simulate(model, 0.5, method="gibbs-appell", **options)
    assert fast.complete and formed.complete
    assert fast.stats["method"] == "recursions"
    assert fast.stats["evaluator"] == ("jit" if HAVE_CC else "recursions")
    assert formed.stats["method"] == "gibbs-appell"
    np.testing.assert_array_equal(fast.t, formed.t)
    # Two evaluations of the same equations, integrated to 1e-11: the same motion to 1e-8.
    np.testing.assert_allclose(fast.q, formed.q, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(fast.qd, formed.qd, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(fast.E, formed.E, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(fast.lam, formed.lam, rtol=1e-7, atol=1e-7)
    assert fast.multipliers == formed.multipliers
    # and the recursions interpreted give the compiled recursions' motion
    interpreted = appell.simulate(model, 0.5, jit=False, **options)
    assert interpreted.stats["evaluator"] == "recursions"
    np.testing.assert_allclose(interpreted.q, fast.q, rtol=1e-8, atol=1e-8)


def test_simulate_of_a_constrained_model_is_the_command_lines(cli, examples, tmp_path):
    """`appell simulate` and appell.simulate take the same route: the same rows."""
    out = tmp_path / "slider.csv"
    cli("simulate", examples / "slider_crank.yaml", "--t-end", "0.5", "--output-step", "0.05",
        "--set", "m3=2", "--out", out)
    header, data = read_csv(out)
    model = appell.load(examples / "slider_crank.yaml")
    r = appell.simulate(model, 0.5, output_step=0.05, values={"m3": 2})
    assert r.stats["method"] == "recursions"
    n, m = model.dof, len(model.constraints)
    assert header[1 + 2 * n + 3:1 + 2 * n + 3 + m] == r.multipliers
    np.testing.assert_allclose(r.t, data[:, 0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(r.q, data[:, 1:1 + n], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r.qd, data[:, 1 + n:1 + 2 * n], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.c_[r.T, r.V, r.E], data[:, 1 + 2 * n:4 + 2 * n], rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(r.lam, data[:, 4 + 2 * n:4 + 2 * n + m], rtol=1e-9, atol=1e-10)


def test_a_long_chain_is_simulated_without_forming_its_equations(tmp_path):
    """40 links: forming the equations would take minutes; the recursions set up in
    milliseconds. The motion keeps its energy, and its q'' is the Dynamics' at every row."""
    path = tmp_path / "chain40.yaml"
    path.write_text(chain_yaml(40))
    model = appell.load(path)
    r = appell.simulate(model, 0.02, output_step=0.01, q0=np.full(40, 0.05), rtol=1e-9,
                        atol=1e-9)
    assert r.complete, r.message
    assert r.stats["method"] == "recursions" and r.stats["conservative"]
    assert r.q.shape == (3, 40)
    assert abs(r.E[-1] - r.E[0]) < 1e-6 * max(1.0, abs(r.E[0]))
    d = appell.Dynamics(model, jit=False)
    np.testing.assert_allclose(r.qdd, d.accelerations(r.q, r.qd), rtol=1e-9, atol=1e-9)


def test_simulate_in_the_speeds_follows_the_formed_route(examples):
    box = appell.load(examples / "speeds" / "free_box_quaternion.yaml")
    u0 = [0.1, 0.0, -0.2, 0.5, 1.0, 2.0]
    options = dict(u0=u0, output_step=0.1, rtol=1e-11, atol=1e-11)
    fast = appell.simulate(box, 1.0, **options)
    formed = appell.simulate(box, 1.0, method="gibbs-appell", **options)
    # The recursions in the speeds compiled where a C compiler is found.
    assert fast.stats["method"] == "recursions"
    assert fast.stats["evaluator"] == ("jit" if HAVE_CC else "recursions")
    interpreted = appell.simulate(box, 1.0, jit=False, **options)
    assert interpreted.stats["evaluator"] == "recursions"
    np.testing.assert_allclose(fast.q, interpreted.q, rtol=1e-9, atol=1e-9)
    assert formed.stats["method"] == "gibbs-appell" and formed.stats["evaluator"] == "tape"
    np.testing.assert_allclose(fast.q, formed.q, rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(fast.u, formed.u, rtol=1e-8, atol=1e-8)
    kane = appell.simulate(box, 1.0, method="dalembert", **options)
    assert kane.stats["method"] == "dalembert"
    np.testing.assert_allclose(kane.u, formed.u, rtol=1e-8, atol=1e-8)


def test_a_model_the_recursions_do_not_cover_is_simulated_in_its_equations(examples):
    model = appell.load(examples / "rod_on_rotating_axes.yaml")
    r = appell.simulate(model, 0.2, output_step=0.1)
    assert r.complete and r.stats["method"] == "gibbs-appell"
    lagrange = appell.simulate(model, 0.2, output_step=0.1, method="lagrange")
    assert lagrange.stats["method"] == "lagrange"
    np.testing.assert_allclose(r.q, lagrange.q, rtol=1e-6, atol=1e-7)


def test_inverse_without_a_method_by_newton_euler(examples):
    panda = appell.load(examples / "urdf" / "panda.urdf")
    motion = "; ".join(f"{c} = 0.3*sin({k + 1}*t)" for k, c in enumerate(panda.coordinates))
    fast = appell.inverse(panda, motion, t_end=0.5, output_step=0.1)
    interpreted = appell.inverse(panda, motion, t_end=0.5, output_step=0.1, jit=False)
    formed = appell.inverse(panda, motion, t_end=0.5, output_step=0.1, method="lagrange")
    assert fast.method == interpreted.method == "recursions" and formed.method == "lagrange"
    scale = np.abs(formed.Q).max()
    np.testing.assert_allclose(fast.Q, formed.Q, atol=1e-10 * scale)
    np.testing.assert_allclose(interpreted.Q, formed.Q, atol=1e-10 * scale)
    # The Dynamics' inverse dynamics along the same motion
    d = appell.Dynamics(panda, jit=False)
    np.testing.assert_allclose(d.inverse_dynamics(fast.q, fast.qd, fast.qdd, fast.t), fast.Q,
                               atol=1e-10 * scale)


def test_inverse_of_a_constrained_model_keeps_the_formed_route(examples):
    slider = appell.load(examples / "slider_crank.yaml")
    r = appell.inverse(slider, "q1 = t; q2 = -0.1*t; x = 0.5", t_end=0.2, output_step=0.1)
    assert r.method == "gibbs-appell" and r.Q.shape == (3, 3)


def test_codegen_without_a_method_is_the_command_lines(cli, examples, tmp_path):
    for name in ("planar_2r.yaml", "slider_crank.yaml"):
        out = tmp_path / (name + ".hpp")
        cli("codegen", examples / name, "--out", out)
        model = appell.load(examples / name)
        header = appell.codegen(model)
        assert header == out.read_text()
        assert "the recursions (no equations formed)" in header
        formed = appell.codegen(model, method="gibbs-appell")
        assert "the recursions (no equations formed)" not in formed
        cli("codegen", examples / name, "--method", "gibbs-appell", "--out", out)
        assert formed == out.read_text()
    with pytest.raises(ValueError, match="^method: unknown method"):
        appell.codegen(model, method="newton")
    with pytest.raises(TypeError, match="^method: "):
        appell.codegen(model, method=1)


@pytest.mark.parametrize("name", ["planar_2r.yaml", "spring_damper_cart.yaml"])
def test_linearize_without_a_method_from_the_recursions(examples, name):
    model = appell.load(examples / name)
    q = model.q0 + 0.3
    fast = appell.linearize(model, q=q)
    formed = appell.linearize(model, q=q, method="lagrange")
    assert fast.inputs == formed.inputs == model.inputs
    scale = np.abs(formed.A).max()
    assert scale > 0
    np.testing.assert_allclose(fast.A, formed.A, atol=1e-10 * scale)
    np.testing.assert_allclose(fast.B, formed.B, atol=1e-10 * np.abs(formed.B).max(initial=1.0))


def test_bad_methods(examples):
    model = appell.load(examples / "planar_2r.yaml")
    with pytest.raises(ValueError, match="^method: unknown method"):
        appell.simulate(model, 0.1, method="newton")
    with pytest.raises(TypeError, match="^method: expected a method name"):
        appell.simulate(model, 0.1, method=1)
    with pytest.raises(ValueError, match="^method: unknown method"):
        appell.inverse(model, "q1 = t; q2 = t", t_end=0.1, output_step=0.1, method="x")
    with pytest.raises(ValueError, match="^method: unknown method"):
        appell.linearize(model, method="x")


def test_inverse_in_the_speeds_acts_on_the_speeds(examples):
    # A box spun up about z (theta = t^2) and pushed along x (x = t^2): m x'' = 4 N along x and
    # I_zz theta'' about z, nothing else, as `appell inverse` writes them.
    box = appell.load(examples / "speeds" / "free_box_quaternion.yaml")
    r = appell.inverse(box, "x=t^2; y=0; z=0; e0=cos(t^2/2); e1=0; e2=0; e3=sin(t^2/2)",
                       t_end=1.0, output_step=0.25)
    assert r.method == "recursions"
    assert r.forces == ["vx", "vy", "vz", "w1", "w2", "w3"]
    assert r.Q.shape == (5, 6)
    izz = 2 * (0.3**2 + 0.2**2) / 12
    np.testing.assert_allclose(r.Q[:, 0], 4.0, atol=1e-12)
    np.testing.assert_allclose(r.Q[:, 5], 2 * izz, atol=1e-12)
    np.testing.assert_allclose(r.Q[:, 1:5], 0.0, atol=1e-12)
