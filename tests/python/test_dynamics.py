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
