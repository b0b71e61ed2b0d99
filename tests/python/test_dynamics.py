"""appell.Dynamics: the numbers of a model without forming its equations (num::Dynamics, or the
compiled code of the same recursions), against the formed equations' Compiled, for single states
and batches; threads sharing one Dynamics get the numbers of one thread; refusals."""

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


def test_threads_share_one_dynamics(panda):
    d = appell.Dynamics(panda)
    rng = np.random.default_rng(8)
    q, qd = rng.uniform(-2, 2, (200, 9)), rng.uniform(-2, 2, (200, 9))
    alone = d.accelerations(q, qd)
    results = [None] * 8

    def work(i):
        results[i] = d.accelerations(q, qd)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for r in results:
        assert np.array_equal(r, alone)


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
    with pytest.raises(ValueError, match="constraints"):
        appell.Dynamics(appell.load(examples / "slider_crank.yaml"))
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
