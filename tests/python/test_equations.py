"""appell.derive, Equations, Compiled (numpy shapes and dtypes, agreement with `appell eval
--json`) and appell.verify."""

import json

import numpy as np
import pytest

import appell
from conftest import chain_yaml

METHODS = ["lagrange", "gibbs-appell", "dalembert", "gauss", "nielsen"]


@pytest.fixture(scope="module")
def robot(examples):
    return appell.load(examples / "planar_2r.yaml")


@pytest.mark.parametrize("method", METHODS)
def test_every_method_gives_the_same_numbers(robot, method):
    reference = appell.derive(robot, "lagrange").compile()
    eq = appell.derive(robot, method)
    assert eq.method == method and eq.dof == 2 and eq.coordinates == ["q1", "q2"]
    c = eq.compile()
    rng = np.random.default_rng(7)
    q, qd = rng.uniform(-2, 2, (10, 2)), rng.uniform(-2, 2, (10, 2))
    for x, y in zip(c.evaluate(q, qd), reference.evaluate(q, qd)):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12)


def test_text_latex_json_and_the_notebook_form(robot):
    eq = appell.derive(robot)
    assert eq.text().startswith("# planar-2r: equations of motion by gibbs-appell")
    assert str(eq) == eq.text()
    assert "\\begin{align}" in eq.latex()
    shown = eq._repr_latex_()
    assert "\\begin{align}" in shown and not any(
        line.startswith("%") for line in shown.splitlines())
    data = json.loads(eq.json())
    assert data["method"] == "gibbs-appell"
    assert "gibbs-appell" in repr(eq)


def test_cost_is_a_dict(robot):
    cost = appell.derive(robot).cost
    assert set(cost) == {"differentiations", "derivative_nodes", "size_before", "size_after",
                         "seconds", "simplify_seconds"}
    assert cost["differentiations"] > 0 and cost["size_after"] > 0
    raw = appell.derive(robot, raw=True)
    assert raw.cost["size_after"] == 0 and raw.simplified is False


def test_options_of_derive(robot, examples):
    second = appell.derive(robot, order=2)
    assert second.order == 2 and "ddot" in second.text()
    with_values = appell.derive(robot, values={"M": 2})
    assert "M*" not in with_values.text().split("mass matrix")[0]
    gauss = appell.derive(robot, "gauss", show="compulsion")
    assert "compulsion Z" in gauss.text()
    hoop = appell.load(examples / "bead_on_hoop.yaml")
    if hoop.independent:
        minimal = appell.derive(hoop, minimal=True)
        assert minimal.minimal and "independent" in minimal.text()
        with pytest.raises(ValueError, match="minimal form"):
            minimal.compile()


def test_bad_arguments_of_derive(robot):
    with pytest.raises(ValueError, match="^method: unknown method 'kane'"):
        appell.derive(robot, "kane")
    with pytest.raises(TypeError, match="^method: "):
        appell.derive(robot, 3)
    with pytest.raises(TypeError, match="^order: "):
        appell.derive(robot, order=1.5)
    with pytest.raises(appell.ModelError) as error:
        appell.derive(robot, order=0)
    assert error.value.file == "order"
    with pytest.raises(appell.ModelError) as error:
        appell.derive(robot, "lagrange", order=2)
    assert error.value.file in ("order", "method")
    with pytest.raises(ValueError, match="^show: unknown quantity"):
        appell.derive(robot, show="everything")
    with pytest.raises(appell.ModelError) as error:
        appell.derive(robot, values={"nope": 1})
    assert error.value.file == "values" and error.value.name == "nope"
    with pytest.raises(TypeError, match=r"^values\['M'\]: "):
        appell.derive(robot, values={"M": "sin(t)"})
    with pytest.raises(TypeError, match="^model: "):
        appell.derive("planar_2r.yaml")


def test_evaluate_shapes_and_dtypes(robot):
    c = appell.derive(robot).compile()
    assert c.dof == 2 and c.constraint_count == 0 and c.instructions > 0
    M, f = c.evaluate([0.3, -0.5], [1.0, 0.0])
    assert M.shape == (2, 2) and f.shape == (2,)
    assert M.dtype == np.float64 and f.dtype == np.float64
    np.testing.assert_allclose(M, M.T)
    qdd = c.accelerations([0.3, -0.5], [1.0, 0.0])
    assert qdd.shape == (2,)
    np.testing.assert_allclose(M @ qdd, f, rtol=1e-12)
    # vectorised: k states at once, the same numbers as one at a time
    rng = np.random.default_rng(3)
    q, qd, t = rng.uniform(-2, 2, (7, 2)), rng.uniform(-2, 2, (7, 2)), rng.uniform(0, 1, 7)
    Ms, fs = c.evaluate(q, qd, t)
    assert Ms.shape == (7, 2, 2) and fs.shape == (7, 2)
    qdds = c.accelerations(q, qd, t)
    assert qdds.shape == (7, 2)
    for i in range(7):
        Mi, fi = c.evaluate(q[i], qd[i], t[i])
        np.testing.assert_array_equal(Ms[i], Mi)
        np.testing.assert_array_equal(fs[i], fi)
        np.testing.assert_array_equal(qdds[i], c.accelerations(q[i], qd[i], t[i]))
    # integer lists and tuples are converted
    np.testing.assert_array_equal(c.evaluate((0, 0), [0, 0])[1], c.evaluate([0.0, 0.0],
                                                                            np.zeros(2))[1])


def test_bad_states_name_the_argument(robot):
    c = appell.derive(robot).compile()
    with pytest.raises(ValueError, match="^q: expected 2 values"):
        c.evaluate([1, 2, 3], [0, 0])
    with pytest.raises(ValueError, match=r"^qd: expected shape \(k, 2\)"):
        c.evaluate(np.zeros((3, 2)), np.zeros((3, 3)))
    with pytest.raises(ValueError, match="^qd: expected the shape of q"):
        c.evaluate(np.zeros((3, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="^t: "):
        c.evaluate(np.zeros((3, 2)), np.zeros((3, 2)), t=np.zeros(4))
    with pytest.raises(TypeError, match="^q: "):
        c.evaluate("abc", [0, 0])
    with pytest.raises(appell.ModelError) as error:
        appell.derive(robot).compile({"X": 1.0})
    assert error.value.name == "X"


def test_a_singular_mass_matrix_is_a_computation_error():
    b = appell.ModelBuilder("polar")
    b.coordinate("r", 1).coordinate("th")
    b.frame("arm", rotation="rot_z(th)")
    b.particle("p", "arm", mass=1, position=["r", 0, 0])
    c = appell.derive(b.build()).compile()
    with pytest.raises(appell.ComputationError) as error:
        c.accelerations([0.0, 0.0], [0.0, 0.0])
    assert "singular" in str(error.value) or "positive definite" in str(error.value)


def test_constraints_give_multipliers(examples):
    model = appell.load(examples / "slider_crank.yaml")
    eq = appell.derive(model)
    assert eq.multipliers == ["lambda_" + name for name in model.constraints]
    c = eq.compile()
    m = len(model.constraints)
    qdd, lam = c.accelerations(model.q0, model.qd0)
    assert qdd.shape == (model.dof,) and lam.shape == (m,)
    qdds, lams = c.accelerations(np.tile(model.q0, (3, 1)), np.tile(model.qd0, (3, 1)))
    assert qdds.shape == (3, model.dof) and lams.shape == (3, m)
    state = c.state(model.q0, model.qd0)
    assert state["A"].shape == (m, model.dof) and state["lam"].shape == (m,)
    np.testing.assert_allclose(state["qdd"], qdd, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["planar_2r", "spring_damper_cart", "slider_crank",
                                  "double_pendulum"])
def test_agrees_with_appell_eval_json_at_random_states(cli, examples, name):
    path = examples / f"{name}.yaml"
    model = appell.load(path)
    c = appell.derive(model).compile({"u": 0.7} if model.inputs else None)
    rng = np.random.default_rng(11)
    for _ in range(3):
        q = model.q0 + (0 if model.constraints else rng.uniform(-1, 1, model.dof))
        qd = rng.uniform(-1, 1, model.dof) if not model.constraints else model.qd0
        t = float(rng.uniform(0, 2))
        args = ["eval", path, "--json", "--t", repr(t), "--q", ",".join(map(repr, q)),
                "--qd", ",".join(map(repr, qd))]
        if model.inputs:
            args += ["--set", "u=0.7"]
        out = json.loads(cli(*args).stdout)
        M, f = c.evaluate(q, qd, t)
        np.testing.assert_allclose(M, out["mass_matrix"], rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(f, out["forcing"], rtol=1e-14, atol=1e-14)
        state = c.state(q, qd, t)
        np.testing.assert_allclose(state["qdd"], out["qdd"], rtol=1e-12, atol=1e-12)
        if model.constraints:
            np.testing.assert_allclose(state["lam"], out["lambda"], rtol=1e-12, atol=1e-12)


def test_verify_lists_every_method(robot):
    rows = appell.verify(robot, states=5)
    assert [r["method"] for r in rows] == METHODS
    for r in rows:
        assert r["agrees"] is True
        assert {"method", "agrees", "differentiations", "size_before", "size_after",
                "seconds"} <= set(r)


def test_a_chain_from_yaml_text():
    eq = appell.derive(appell.Model.from_yaml(chain_yaml(4)), raw=True)
    M, f = eq.compile().evaluate(np.zeros(4), np.zeros(4))
    assert M.shape == (4, 4) and np.all(np.linalg.eigvalsh(M) > 0)


def test_equations_printed_through_named_quantities_evaluate_as_formed():
    # 10 links print through the recursions' names (omega_3z, F_2x, ...); compile() and simulate
    # work on M and f with the names put back, the same numbers as the raw equations.
    model = appell.Model.from_yaml(chain_yaml(10))
    shown = appell.derive(model)
    assert "named quantities of the recursions" in shown.text()
    raw = appell.derive(model, raw=True)
    rng = np.random.default_rng(7)
    q, qd = rng.uniform(-1, 1, (3, 10)), rng.uniform(-1, 1, (3, 10))
    M1, f1 = shown.compile().evaluate(q, qd)
    M2, f2 = raw.compile().evaluate(q, qd)
    assert np.allclose(M1, M2, rtol=1e-10, atol=1e-12) and np.allclose(f1, f2, rtol=1e-10)
    assert np.all(np.abs(f1) > 0).any()
    run = appell.simulate(shown, 0.05, output_step=0.05, jit=False)
    assert run.complete and np.allclose(run.q, appell.simulate(raw, 0.05, output_step=0.05,
                                                               jit=False).q)
