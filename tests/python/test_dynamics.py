"""appell.Dynamics: the numbers of a model without forming its equations (num::Dynamics, or the
compiled code of the same recursions), against the formed equations' Compiled, for single states
and batches, with constraints (q'', lambda, A, b) and in generalized speeds (u', q' = W u, against
the formed equations in the speeds); threads sharing one Dynamics get the numbers of one thread;
refusals and shape errors naming the argument."""

import threading

import numpy as np
import pytest

import appell
from conftest import chain_yaml


@pytest.fixture(scope="module")
def panda(examples):
    return appell.load(examples / "urdf" / "panda.urdf")


@pytest.mark.parametrize("jit", [False, True])
def test_agrees_with_the_formed_equations(panda, jit):
    d = appell.Dynamics(panda, jit=jit)
    assert d.dof == 9 and d.coordinates[0] == "panda_joint1"
    assert d.kind in (("jit", "recursions") if jit else ("recursions",))
    reference = appell.derive(panda).compile()
    rng = np.random.default_rng(26)
    q, qd = rng.uniform(-1.5, 1.5, (20, 9)), rng.uniform(-2, 2, (20, 9))
    M, f = reference.evaluate(q, qd)
    qdd = reference.accelerations(q, qd)
    np.testing.assert_allclose(d.accelerations(q, qd), qdd, rtol=1e-8, atol=1e-8)
    Md, fd = d.mass_matrix_and_forcing(q, qd)
    np.testing.assert_allclose(Md, M, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(fd, f, rtol=1e-10, atol=1e-10)
    # tau = M qdd - f, and inverse(forward) = 0 state by state
    a = rng.uniform(-3, 3, (20, 9))
    tau = d.inverse_dynamics(q, qd, a)
    np.testing.assert_allclose(tau, np.einsum("kij,kj->ki", M, a) - f, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(d.inverse_dynamics(q[0], qd[0], qdd[0]), 0.0, atol=1e-8)
    # one state: shape (n,)
    assert d.accelerations(q[0], qd[0]).shape == (9,)
    # gravity holds it still
    g = d.gravity(q[0])
    assert g.shape == (9,) and np.abs(g).max() > 1.0
    np.testing.assert_allclose(d.mass_matrix_and_forcing(q[0], np.zeros(9))[1], -g, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("path", ["urdf/panda.urdf", "slider_crank.yaml",
                                  "speeds/free_box_quaternion.yaml",
                                  "speeds/slotted_ball_joint.yaml"])
@pytest.mark.parametrize("jit", [False, True])
def test_threads_share_one_dynamics(examples, path, jit):
    """8 threads on one Dynamics (unconstrained, constrained, in speeds, both) get the bits of
    one thread: each call has its own workspace, nothing is shared but the programs."""
    model = appell.load(examples / path)
    d = appell.Dynamics(model, jit=jit)
    rng = np.random.default_rng(8)
    q = model.q0 + rng.uniform(-0.2, 0.2, (200, d.dof))
    qd = rng.uniform(-2, 2, (200, d.speed_count))

    def numbers():
        out = d.accelerations(q, qd)
        A, b = d.constraints(q, qd)
        return (*(out if d.constraint_count else (out,)), A, b,
                d.coordinate_velocities(q, qd), *d.mass_matrix_and_forcing(q, qd))

    alone = numbers()
    results = [None] * 8

    def work(i):
        results[i] = numbers()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert len(r) == len(alone)
        for a, b in zip(r, alone):
            assert np.array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# Constraints: (q'', lambda) of M q'' = f + A^T lambda, A q'' = b, as the formed equations


CONSTRAINED = ["slider_crank.yaml", "bricard.yaml", "whipple_bicycle.yaml"]


@pytest.fixture(scope="module")
def formed():
    """derive(model).compile() of each constrained example, formed once for the module."""
    cache = {}

    def get(model):
        if model.name not in cache:
            cache[model.name] = appell.derive(model, raw=True).compile()
        return cache[model.name]

    return get


@pytest.mark.parametrize("name", CONSTRAINED)
@pytest.mark.parametrize("jit", [False, True])
def test_constrained_models_agree_with_the_formed_equations(examples, formed, name, jit):
    model = appell.load(examples / name)
    d = appell.Dynamics(model, jit=jit)
    n, m = model.dof, len(model.constraints)
    assert d.dof == d.speed_count == n and d.speeds == []
    assert d.constraint_count == m
    assert d.multipliers == ["lambda_" + c for c in model.constraints]
    reference = formed(model)
    rng = np.random.default_rng(37)
    # The initial state first (Bricard's five constraints have rank four there: the
    # minimum-norm multipliers), then states around it, off the constraints too.
    q = np.vstack([model.q0, model.q0 + rng.uniform(-0.4, 0.4, (11, n))])
    qd = np.vstack([np.zeros(n), rng.uniform(-1.5, 1.5, (11, n))])
    qdd, lam = d.accelerations(q, qd)
    assert qdd.shape == (12, n) and lam.shape == (12, m)
    expected_qdd, expected_lam = reference.accelerations(q, qd)
    scale = max(1.0, np.abs(expected_qdd).max())
    np.testing.assert_allclose(qdd, expected_qdd, rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(lam, expected_lam, rtol=1e-9,
                               atol=1e-9 * max(1.0, np.abs(expected_lam).max()))
    # The rows themselves, and the tree's M and f, are the formed equations' at each state.
    A, b = d.constraints(q, qd)
    assert A.shape == (12, m, n) and b.shape == (12, m)
    M, f = d.mass_matrix_and_forcing(q, qd)
    for k in range(12):
        state = reference.state(q[k], qd[k])
        np.testing.assert_allclose(A[k], state["A"], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(b[k], state["b"], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(M[k], state["M"], rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(f[k], state["f"], rtol=1e-10, atol=1e-9)
        # and the solution keeps them: A q'' = b, M q'' = f + A^T lambda
        np.testing.assert_allclose(A[k] @ qdd[k], b[k], atol=1e-8 * scale)
        np.testing.assert_allclose(M[k] @ qdd[k], f[k] + A[k].T @ lam[k], atol=1e-8 * scale)
    # One state: shapes (n,) and (m,); t as a number or one per state.
    one, one_lam = d.accelerations(q[3], qd[3], 0.0)
    assert one.shape == (n,) and one_lam.shape == (m,)
    np.testing.assert_array_equal(one, qdd[3])
    A1, b1 = d.constraints(q[3], qd[3], t=0.0)
    assert A1.shape == (m, n) and b1.shape == (m,)
    np.testing.assert_array_equal(d.accelerations(q, qd, np.zeros(12))[0], qdd)
    # Without speeds q' is the velocity itself.
    np.testing.assert_array_equal(d.coordinate_velocities(q, qd), qd)


def test_an_unconstrained_dynamics_has_no_rows(panda):
    d = appell.Dynamics(panda, jit=False)
    assert d.constraint_count == 0 and d.multipliers == [] and d.speed_count == 9
    A, b = d.constraints(np.zeros(9), np.zeros(9))
    assert A.shape == (0, 9) and b.shape == (0,)
    assert isinstance(d.accelerations(np.zeros(9), np.zeros(9)), np.ndarray)


# ---------------------------------------------------------------------------------------------
# Generalized speeds: M~(q) u' = f~(q, u), q' = W(q) u, as the formed equations in the speeds


SPEEDS = [("speeds/free_box_quaternion.yaml", {}), ("speeds/damped_cube.yaml", {}),
          ("speeds/slotted_ball_joint.yaml", {}),
          ("urdf/satellite_arm.urdf", {"floating_base": True})]


@pytest.mark.parametrize("path,options", SPEEDS, ids=[p for p, _ in SPEEDS])
@pytest.mark.parametrize("jit", [False, True])
def test_speeds_agree_with_the_formed_equations_in_the_speeds(examples, path, options, jit):
    """The formed equations in the speeds (derive(model)) integrated, and the Dynamics at every
    row of that motion: u' (and lambda) and q' = W u as the formed equations gave them."""
    model = appell.load(examples / path, **options)
    d = appell.Dynamics(model, jit=jit)
    n, p, m = model.dof, len(model.speeds), len(model.constraints)
    assert p > 0 and d.speed_count == p and d.dof == n and d.speeds == model.speeds
    assert d.constraint_count == m
    eq = appell.derive(model, raw=True)
    assert eq.speeds == model.speeds
    rng = np.random.default_rng(41)
    u0 = [0, 0.3, 1.5] if m else rng.uniform(-1, 1, p)
    r = appell.simulate(eq, 0.5, u0=u0, output_step=0.05, rtol=1e-10, atol=1e-10)
    assert r.complete, r.message
    assert r.stats["method"] == "gibbs-appell" and r.stats["evaluator"] == "tape"
    k = len(r.t)
    out = d.accelerations(r.q, r.u, r.t)
    udot, lam = out if m else (out, np.zeros((k, 0)))
    assert udot.shape == (k, p) and lam.shape == (k, m)
    scale = max(1.0, np.abs(r.udot).max())
    np.testing.assert_allclose(udot, r.udot, rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(lam, r.lam, rtol=1e-9, atol=1e-9 * np.abs(r.lam).max(initial=1.0))
    qd = d.coordinate_velocities(r.q, r.u, r.t)
    assert qd.shape == (k, n)
    np.testing.assert_allclose(qd, r.qd, rtol=1e-12, atol=1e-12)
    # M~ is p x p, symmetric and positive definite; M~ u' = f~ + A~^T lambda, tau = M~ u' - f~
    M, f = d.mass_matrix_and_forcing(r.q, r.u, r.t)
    assert M.shape == (k, p, p) and f.shape == (k, p)
    A, b = d.constraints(r.q, r.u, r.t)
    assert A.shape == (k, m, p) and b.shape == (k, m)
    tau = d.inverse_dynamics(r.q, r.u, udot, r.t)
    assert tau.shape == (k, p)
    for i in range(k):
        np.testing.assert_allclose(M[i], M[i].T, atol=1e-12)
        assert np.linalg.eigvalsh(M[i]).min() > 0
        np.testing.assert_allclose(M[i] @ udot[i], f[i] + A[i].T @ lam[i], atol=1e-9 * scale)
        np.testing.assert_allclose(tau[i], A[i].T @ lam[i], atol=1e-9 * scale)
        np.testing.assert_allclose(A[i] @ udot[i], b[i], atol=1e-9 * scale)
    assert d.gravity(r.q).shape == (k, p)


def test_rates_are_checked_against_the_speeds(examples):
    box = appell.load(examples / "speeds" / "free_box_quaternion.yaml")
    d = appell.Dynamics(box, jit=False)
    q, u = box.q0, np.zeros(6)
    assert d.dof == 7 and d.speed_count == 6
    with pytest.raises(ValueError, match=r"^qd: expected 6 values \(one per speed\), got 7"):
        d.accelerations(q, np.zeros(7))
    with pytest.raises(ValueError, match=r"^q: expected 7 values \(one per coordinate\)"):
        d.accelerations(np.zeros(6), u)
    with pytest.raises(ValueError, match=r"^qdd: expected 6 values"):
        d.inverse_dynamics(q, u, np.zeros(7))
    with pytest.raises(ValueError, match=r"^qdd: expected as many states as q"):
        d.inverse_dynamics(q, u, np.zeros((2, 6)))
    with pytest.raises(ValueError, match=r"^u: expected 6 values"):
        d.coordinate_velocities(q, np.zeros(7))
    with pytest.raises(ValueError, match=r"^qd: expected shape \(k, 6\)"):
        d.mass_matrix_and_forcing(np.tile(q, (3, 1)), np.zeros((3, 7)))
    with pytest.raises(ValueError, match=r"^qd: expected as many states as q"):
        d.constraints(np.tile(q, (3, 1)), np.zeros((2, 6)))
    with pytest.raises(ValueError, match=r"^t: "):
        d.accelerations(np.tile(q, (3, 1)), np.zeros((3, 6)), t=[0.0, 1.0])
    with pytest.raises(ValueError, match="generalized speeds"):
        d.derivatives(q, u)
    # the rate of the quaternion is W u: a spin about the body's x axis turns e1 at w/2
    np.testing.assert_allclose(d.coordinate_velocities(q, [0, 0, 0, 2.0, 0, 0]),
                               [0, 0, 0, 0, 1.0, 0, 0], atol=1e-15)


def test_values_fold_into_the_numbers(tmp_path):
    path = tmp_path / "chain.yaml"
    path.write_text(chain_yaml(3))
    model = appell.load(path)
    heavy = appell.Dynamics(model, {"m": 2.0}, jit=False)
    reference = appell.derive(model).compile({"m": 2.0})
    q, qd = [0.3, -0.2, 0.5], [0.1, 0.4, -0.7]
    np.testing.assert_allclose(heavy.accelerations(q, qd), reference.accelerations(q, qd),
                               rtol=1e-10)


def test_refusals(examples, panda):
    # What the recursions do not cover is named.
    with pytest.raises(ValueError, match="^model: the recursions do not cover .*carrier"):
        appell.Dynamics(appell.load(examples / "rod_on_rotating_axes.yaml"))
    with pytest.raises(ValueError, match="^model: the recursions do not cover .*flexible"):
        appell.Dynamics(appell.load(examples / "fem" / "flexible_slider_crank.yaml"))
    slider = appell.Dynamics(appell.load(examples / "slider_crank.yaml"), jit=False)
    with pytest.raises(ValueError, match="constraints"):
        slider.derivatives([0.5, 0.0, 0.3], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        appell.Dynamics(panda, {"no_such_parameter": 1.0})
    d = appell.Dynamics(panda, jit=False)
    with pytest.raises(ValueError, match="q"):
        d.accelerations([0.0, 0.0], [0.0, 0.0])


def test_derivatives_against_central_differences_and_eval(panda, examples):
    """Dynamics.derivatives: the recursions differentiated, against central differences of
    accelerations and inverse_dynamics, against each other, and the numbers of `eval --derivatives`
    (the same library call)."""
    d = appell.Dynamics(panda, jit=False)
    rng = np.random.default_rng(29)
    q, qd, tau = rng.uniform(-1, 1, 9), rng.uniform(-1, 1, 9), rng.uniform(-1, 1, 9)
    out = d.derivatives(q, qd, tau=tau)
    assert set(out) == {"qdd", "dtau_dq", "dtau_dqd", "dqdd_dq", "dqdd_dqd", "minv"}
    assert out["minv"].shape == (9, 9)
    h = 1e-6
    eye = np.eye(9)

    def central(f):
        return np.column_stack([(f(eye[j] * h) - f(-eye[j] * h)) / (2 * h) for j in range(9)])

    M, f = d.mass_matrix_and_forcing(q, qd)
    qdd = np.linalg.solve(M, f + tau)
    np.testing.assert_allclose(out["qdd"], qdd, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(out["minv"], np.linalg.inv(M), rtol=1e-8, atol=1e-8)

    def forward(dq=0, dqd=0):
        Mx, fx = d.mass_matrix_and_forcing(q + dq, qd + dqd)
        return np.linalg.solve(Mx, fx + tau)

    scale = max(1.0, np.abs(out["dqdd_dq"]).max())
    np.testing.assert_allclose(out["dqdd_dq"], central(lambda e: forward(dq=e)), atol=1e-6 * scale)
    np.testing.assert_allclose(out["dqdd_dqd"], central(lambda e: forward(dqd=e)),
                               atol=1e-6 * scale)
    dtau = central(lambda e: d.inverse_dynamics(q + e, qd, out["qdd"]))
    np.testing.assert_allclose(out["dtau_dq"], dtau, atol=1e-6 * max(1.0, np.abs(dtau).max()))
    # dqdd/dq = -M^-1 dtau/dq at qdd = forward
    np.testing.assert_allclose(out["dqdd_dq"], -out["minv"] @ out["dtau_dq"], atol=1e-9 * scale)
    with pytest.raises(ValueError):
        d.derivatives(np.zeros((2, 9)), np.zeros((2, 9)))
