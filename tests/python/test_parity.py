"""Python on a par with the command line: appell.linearize, statics, check, report, import_urdf
and load's URDF options, each against the command line's output for the same model, with the
physics checked where there is an independent reference; the errors; to_sympy of the UR5 through
its named intermediates; and the docstrings."""

import inspect
import json
import random

import numpy as np
import pytest

import appell


def cli_json(cli, *args):
    return json.loads(cli(*args).stdout)


# ---- linearize ------------------------------------------------------------------------------


def test_linearize_is_what_the_command_line_prints(cli, examples):
    cart = appell.load(examples / "spring_damper_cart.yaml")
    r = appell.linearize(cart, q=[0.0, 0.1], qd=[0.2, 0.0], values={"k": 30.0, "u": 0.5})
    out = cli_json(cli, "linearize", examples / "spring_damper_cart.yaml", "--q", "0,0.1",
                   "--qd", "0.2,0", "--set", "k=30", "--set", "u=0.5", "--json", "--modes")
    assert isinstance(r, appell.LinearizationResult)
    assert r.states == out["states"] == ["x", "theta", "dot(x)", "dot(theta)"]
    assert r.inputs == out["inputs"] == ["u"]
    assert r.A.shape == (4, 4) and r.B.shape == (4, 1) and r.A.dtype == np.float64
    np.testing.assert_array_equal(r.A, np.array(out["A"]))
    np.testing.assert_array_equal(r.B, np.array(out["B"]))
    assert r.eigenvalues.dtype == np.complex128
    np.testing.assert_array_equal(r.eigenvalues, [complex(*s) for s in out["eigenvalues"]])
    assert [(g["eigenvalue"], g["conjugate_pair"], g["count"]) for g in r.eigenvalue_groups] == \
        [(complex(*g["eigenvalue"]), g["conjugate_pair"], g["count"])
         for g in out["eigenvalue_groups"]]
    # One mode per group as the text lists them (a pair once); the JSON has one per eigenvalue.
    assert [(m["eigenvalue"], m["conjugate_pair"], m["count"]) for m in r.modes] == \
        [(complex(*g["eigenvalue"]), g["conjugate_pair"], g["count"])
         for g in out["eigenvalue_groups"]]
    assert [(m["eigenvalue"], m["natural_frequency"], m["damping_ratio"], m["unstable"])
            for m in r.modes] == \
        [(complex(*m["eigenvalue"]), m["natural_frequency"], m["damping_ratio"], m["unstable"])
         for m in out["modes"] if m["eigenvalue"][1] >= 0]
    assert r.noise_threshold == 1e-12
    np.testing.assert_array_equal(r.q, [0.0, 0.1])
    assert r.text == cli("linearize", examples / "spring_damper_cart.yaml", "--q", "0,0.1",
                         "--qd", "0.2,0", "--set", "k=30", "--set", "u=0.5", "--modes").stdout
    # The model is damped (rail damper, pivot friction): every mode decays.
    assert all(m["damping_ratio"] > 0 and not m["unstable"] for m in r.modes)


def test_linearize_gives_the_small_oscillations_of_the_double_pendulum(examples):
    """About the hanging equilibrium: det(K - w^2 M) = 0 with M and K written by hand for two
    point masses, the reference; each frequency once, as a conjugate pair with real part 0."""
    model = appell.load(examples / "double_pendulum.yaml")
    p = model.parameters
    m1, m2, l1, l2, g = (p[k] for k in ("m1", "m2", "l1", "l2", "g"))
    # q2 relative to the upper rod: x2 = l1 q1 + l2 (q1 + q2) to first order
    M = np.array([[(m1 + m2) * l1**2 + m2 * l2**2 + 2 * m2 * l1 * l2, m2 * l2**2 + m2 * l1 * l2],
                  [m2 * l2**2 + m2 * l1 * l2, m2 * l2**2]])
    K = np.array([[(m1 + m2) * g * l1 + m2 * g * l2, m2 * g * l2], [m2 * g * l2, m2 * g * l2]])
    reference = np.sqrt(np.sort(np.linalg.eigvals(np.linalg.solve(M, K)).real))
    r = appell.linearize(model, q=[0, 0], qd=[0, 0])
    assert [g["conjugate_pair"] for g in r.eigenvalue_groups] == [True, True]
    assert all(g["eigenvalue"].real == 0.0 for g in r.eigenvalue_groups)  # noise removed
    np.testing.assert_allclose([g["eigenvalue"].imag for g in r.eigenvalue_groups], reference,
                               rtol=1e-10)
    # statics(modes=True) forms the same modes from the equilibrium it finds
    s = appell.statics(model, modes=True)
    hanging = next(e for e in s.equilibria if e["stable"])
    np.testing.assert_allclose(sorted({round(m["natural_frequency"], 9) for m in hanging["modes"]}),
                               reference, rtol=1e-8)


def test_linearize_groups_zero_modes_and_forms_the_symbolic_model(cli, examples):
    # A cart with no spring: x is free, so A has the eigenvalue 0 (any position is rest), and
    # without damping twice (any speed is kept), grouped once with its count.
    b = appell.ModelBuilder("free-cart").parameter("m", 2).parameter("c", 0.5)
    b.coordinate("x").frame("cart", translation=["x", 0, 0]).particle("p", "cart", mass="m")
    b.generalized_force("x", "-c*dot(x)").input("u").generalized_force("x", "u")
    cart = b.build()
    r = appell.linearize(cart, symbolic=True)
    assert [g["count"] for g in r.eigenvalue_groups] == [1, 1]
    assert r.eigenvalue_groups[0]["eigenvalue"] == 0j  # exactly: found by deflation
    assert r.eigenvalue_groups[1]["eigenvalue"] == pytest.approx(-0.25, rel=1e-14)  # -c/m
    assert r.A_symbolic == [["0", "1"], ["0", "-c/m"]] and r.B_symbolic == [["0"], ["1/m"]]
    undamped = appell.linearize(cart, values={"c": 0.0})
    assert [(g["eigenvalue"], g["count"]) for g in undamped.eigenvalue_groups] == [(0j, 2)]
    # --symbolic through the command line: the same expressions
    pendulum = examples / "double_pendulum.yaml"
    out = cli_json(cli, "linearize", pendulum, "--q", "0,0", "--json", "--symbolic")
    r = appell.linearize(appell.load(pendulum), q=[0, 0], symbolic=True)
    assert r.A_symbolic == out["A_symbolic"] and r.B_symbolic == out["B_symbolic"]


def test_linearize_with_constraints_keeps_the_independent_states(cli, examples):
    slider = examples / "slider_crank.yaml"
    model = appell.load(slider)
    r = appell.linearize(model)
    out = cli_json(cli, "linearize", slider, "--json", "--modes")
    assert r.states == out["states"] and len(r.states) < 2 * model.dof
    assert sorted(r.independent_coordinates + r.dependent_coordinates) == sorted(model.coordinates)
    np.testing.assert_array_equal(r.A, np.array(out["A"]).reshape(r.A.shape))


def test_linearize_errors(examples):
    cart = appell.load(examples / "spring_damper_cart.yaml")
    with pytest.raises(ValueError, match=r"^q: expected 2 values"):
        appell.linearize(cart, q=[0, 0, 0])
    with pytest.raises(appell.ModelError) as e:
        appell.linearize(cart, inputs=["w"])
    assert e.value.file == "inputs" and e.value.name == "w"
    with pytest.raises(appell.ModelError) as e:
        appell.linearize(cart, values={"kk": 1.0})
    assert e.value.name == "kk"
    with pytest.raises(TypeError, match="^inputs"):
        appell.linearize(cart, inputs="u")


# ---- statics --------------------------------------------------------------------------------


@pytest.mark.parametrize("name, modes", [("double_pendulum", True),
                                         ("rod_on_rotating_axes", True),
                                         ("overconstrained_pendulum", False)])
def test_statics_has_every_field_of_the_command_line_json(cli, examples, name, modes):
    path = examples / f"{name}.yaml"
    out = cli_json(cli, "statics", path, "--json", *(["--modes"] if modes else []))
    r = appell.statics(appell.load(path), modes=modes)
    assert r.generalized_forces == out["generalized_forces"]
    assert r.free_coordinates == out["free_coordinates"]
    assert r.inertial_forces == out.get("inertial_forces")
    assert r.relative == out.get("relative")
    assert len(r.equilibria) == len(out["equilibria"])
    for mine, theirs in zip(r.equilibria, out["equilibria"]):
        # every key of the JSON ("lambda" is lam: lambda is a Python keyword)
        keys = set(theirs) - {"lambda"} | ({"lam"} if "lambda" in theirs else set())
        assert keys <= set(mine), keys - set(mine)
        np.testing.assert_array_equal(mine["q"], theirs["q"])
        if "lambda" in theirs:
            np.testing.assert_array_equal(mine["lam"], theirs["lambda"])
        for key in ("stable", "stability", "redundant_constraints", "gyroscopic_stabilization"):
            assert mine.get(key) == theirs.get(key)
        np.testing.assert_array_equal(mine["stiffness_eigenvalues"],
                                      theirs["stiffness_eigenvalues"])
        assert mine["neutral_directions"].shape == (len(theirs["neutral_directions"]),
                                                    len(mine["q"]))
        for a, b in zip(mine.get("modes", []), theirs.get("modes", [])):
            assert a["eigenvalue"] == complex(*b["eigenvalue"])
            assert (a["natural_frequency"], a["damping_ratio"], a["unstable"]) == \
                (b["natural_frequency"], b["damping_ratio"], b["unstable"])
    if name == "rod_on_rotating_axes":
        assert r.relative["carrier"] and r.inertial_forces


# ---- check ----------------------------------------------------------------------------------


def test_check_is_what_the_command_line_judges(cli, examples):
    model_path, claims = examples / "planar_2r.yaml", examples / "claims" / "planar_2r_negrean2024.yaml"
    r = appell.check(appell.load(model_path), claims)
    run = cli("check", model_path, claims, "--json", check=False)
    assert run.returncode == 1  # the paper's eqs. 125, 127-128 and 143-144 differ
    assert isinstance(r, appell.CheckResult) and r.holds is False
    assert r.claims == json.loads(run.stdout)["claims"]
    assert r.text == cli("check", model_path, claims, check=False).stdout
    verdicts = {c["name"]: c["verdict"] for c in r.claims}
    assert verdicts["T_112"] == verdicts["M11_117"] == "holds"
    assert verdicts["Qg1_125"] == "differs"


def test_check_of_a_bad_claims_file_is_located(cli, examples, tmp_path):
    bad = tmp_path / "claims.yaml"
    bad.write_text('claims:\n  - {name: a, mass_matrix: [1, 1], valu: "1"}\n')
    with pytest.raises(appell.ModelError) as e:
        appell.check(appell.load(examples / "planar_2r.yaml"), bad)
    run = cli("check", examples / "planar_2r.yaml", bad, check=False)
    assert run.returncode == 2
    assert (e.value.file, e.value.line, e.value.column, e.value.name) == (str(bad), 2, 36, "valu")
    assert run.stderr.startswith(f"{bad}:2:36: ")


# ---- report ---------------------------------------------------------------------------------


def test_report_writes_the_page_the_command_line_writes(cli, examples, tmp_path):
    path = examples / "planar_2r.yaml"
    mine, theirs = tmp_path / "python.html", tmp_path / "cli.html"
    r = appell.report(appell.load(path), mine, t_end=0.5, verify="numeric", values={"M": 2.0})
    cli("report", path, "--out", theirs, "--t-end", "0.5", "--verify", "numeric", "--set", "M=2")
    assert isinstance(r, appell.ReportResult)
    assert r.complete and r.incomplete == [] and r.path == str(mine) and r.html is None
    assert mine.read_bytes() == theirs.read_bytes()
    page = appell.report(appell.load(path), t_end=0.5, verify="numeric", values={"M": 2.0})
    assert page.path is None and page.html.encode() == theirs.read_bytes()


def test_report_errors(examples, tmp_path):
    model = appell.load(examples / "planar_2r.yaml")
    with pytest.raises(ValueError, match="^out: .* is the model file"):
        appell.report(model, examples / "planar_2r.yaml")
    with pytest.raises(ValueError, match="^verify: expected"):
        appell.report(model, tmp_path / "r.html", verify="some")
    with pytest.raises(ValueError, match="^q0: expected 2 values"):
        appell.report(model, tmp_path / "r.html", q0=[1.0])
    with pytest.raises(appell.ModelError) as e:
        appell.report(model, tmp_path / "r.html", t_end=-1.0)
    assert e.value.file == "t_end"


# ---- import_urdf and load's URDF options ----------------------------------------------------


def test_import_urdf_is_what_appell_import_writes(cli, examples, tmp_path):
    urdf = examples / "urdf" / "two_link.urdf"
    assert appell.import_urdf(urdf) == cli("import", urdf).stdout
    text = appell.import_urdf(urdf, gravity=[0, -9.81, 0], joint_damping=True,
                              out=tmp_path / "two_link.yaml")
    assert text == cli("import", urdf, "--gravity", "0,-9.81,0", "--joint-damping").stdout
    assert (tmp_path / "two_link.yaml").read_text() == text
    # read back it is the model load() gives: the same numbers at a state
    q, qd = [0.3, -0.4], [0.5, 0.2]
    direct = appell.derive(appell.load(urdf, gravity=[0, -9.81, 0], joint_damping=True))
    imported = appell.derive(appell.Model.from_yaml(text))
    for a, b in zip(direct.compile().evaluate(q, qd), imported.compile().evaluate(q, qd)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)
    with pytest.raises(appell.ModelError, match="URDF"):
        appell.import_urdf(examples / "planar_2r.yaml")


def test_load_takes_the_urdf_options(cli, examples):
    urdf = examples / "urdf" / "two_link.urdf"
    q, qd = [0.3, 0.2], [0.1, -0.2]
    gravity = {g: appell.Dynamics(appell.load(urdf, gravity=g), jit=False).gravity(q)
               for g in ((0, 0, -9.81), (0, 0, -19.62), (0, 0, 0))}
    # gravity's generalized forces are linear in g, and 0 without it
    np.testing.assert_allclose(gravity[(0, 0, -19.62)], 2 * gravity[(0, 0, -9.81)], rtol=1e-14)
    np.testing.assert_array_equal(gravity[(0, 0, 0)], [0, 0])
    # the same M and f as the command line with --gravity
    sideways = appell.load(urdf, gravity=[9.81, 0, 0])
    out = cli_json(cli, "eval", urdf, "--gravity", "9.81,0,0", "--q", "0.3,0.2", "--qd", "0.1,-0.2",
                   "--json")
    M, f = appell.derive(sideways).compile().evaluate(q, qd)
    np.testing.assert_allclose(M, out["mass_matrix"], rtol=1e-12)
    np.testing.assert_allclose(f, out["forcing"], rtol=1e-12, atol=1e-14)
    # joint damping: the elbow's <dynamics damping="0.05"> as -0.05*dot(elbow)
    plain = appell.Dynamics(appell.load(urdf), jit=False).mass_matrix_and_forcing(q, qd)[1]
    damped = appell.Dynamics(appell.load(urdf, joint_damping=True),
                             jit=False).mass_matrix_and_forcing(q, qd)[1]
    np.testing.assert_allclose(damped - plain, [0.0, -0.05 * qd[1]], atol=1e-15)
    # symbolic inertia: the links' inertial values as parameters with the URDF's defaults
    symbolic = appell.load(urdf, symbolic_inertia=True)
    assert symbolic.parameters["m_upper"] == 1.0 and symbolic.parameters["m_lower"] == 0.5
    floating = appell.load(examples / "urdf" / "satellite_arm.urdf", floating_base=True)
    fixed = appell.load(examples / "urdf" / "satellite_arm.urdf")
    assert floating.dof == fixed.dof + 7 and "base_e0" in floating.coordinates


def test_load_refuses_urdf_options_for_a_yaml_model(examples):
    path = examples / "planar_2r.yaml"
    for option, value in (("gravity", [0, 0, -1]), ("joint_damping", True),
                          ("symbolic_inertia", True), ("floating_base", True)):
        with pytest.raises(ValueError, match=f"^{option}: applies to a URDF model"):
            appell.load(path, **{option: value})
    with pytest.raises(TypeError, match="^gravity: expected three numbers"):
        appell.load(examples / "urdf" / "two_link.urdf", gravity=[0, -9.81])
    with pytest.raises(ValueError, match=r"^gravity\[2\]: not a finite number"):
        appell.load(examples / "urdf" / "two_link.urdf", gravity=[0, 0, float("nan")])


def test_load_warns_what_the_urdf_translation_warns(tmp_path):
    urdf = tmp_path / "mimic.urdf"
    urdf.write_text("""<?xml version="1.0"?>
<robot name="mimic">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="b"><inertial><mass value="1"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="a"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="j2" type="continuous"><parent link="a"/><child link="b"/>
    <origin xyz="1 0 0"/><axis xyz="0 0 1"/><mimic joint="j1"/></joint>
</robot>
""")
    with pytest.warns(UserWarning, match="mimic"):
        model = appell.load(urdf)
    assert model.coordinates == ["j1", "j2"]


def test_a_bad_urdf_is_a_located_model_error(cli, tmp_path):
    urdf = tmp_path / "bad.urdf"
    urdf.write_text('<?xml version="1.0"?>\n<robot name="r">\n  <link name="a"/>\n'
                    '  <joint name="j" type="hinge"><parent link="a"/><child link="b"/></joint>\n'
                    '</robot>\n')
    with pytest.raises(appell.ModelError) as e:
        appell.load(urdf)
    run = cli("derive", urdf, check=False)
    assert run.returncode == 2 and e.value.file == str(urdf) and e.value.line > 0
    assert run.stderr.startswith(f"{urdf}:{e.value.line}:{e.value.column}: ")


# ---- to_sympy of a large model --------------------------------------------------------------


def numbers_of(expressions, intermediates, state):
    """Float values of `expressions` at `state` ({dynamicsymbol or derivative: number}), the
    intermediates evaluated in order."""
    import sympy

    values = dict(state)
    derivatives = {k: v for k, v in state.items() if isinstance(k, sympy.Derivative)}
    for name, definition in intermediates:
        values[name] = float(definition.xreplace(derivatives).xreplace(values))
    return np.array([float(e.xreplace(derivatives).xreplace(values)) for e in expressions])


def test_to_sympy_of_the_ur5_through_its_named_intermediates(examples):
    """The UR5 (6 joints) converts through the names text() prints: f[0] a few characters
    beside ~130 short definitions, where the flat tree of f[0] alone had 2.2 million."""
    sympy = pytest.importorskip("sympy")
    from sympy.physics.mechanics import dynamicsymbols

    model = appell.load(examples / "urdf" / "ur5_robot.urdf")
    eq = appell.derive(model)
    result = eq.to_sympy()
    M, f = result  # still unpacks as (M, f)
    assert M.shape == (6, 6) and f.shape == (6, 1)
    assert 50 <= len(result.intermediates) <= 500
    sizes = [len(str(e)) for e in list(M) + list(f)]
    definitions = [len(str(d)) for _, d in result.intermediates]
    assert len(str(f[0])) < 200, str(f[0])[:200]
    assert max(sizes) < 2_000 and max(definitions) < 2_000
    assert sum(sizes) + sum(definitions) < 100_000  # the flat f[0] alone: 2.2 million
    # The same numbers as the compiled equations at a random state, through the names ...
    rng = random.Random(3)
    q = [rng.uniform(-1, 1) for _ in range(6)]
    qd = [rng.uniform(-1, 1) for _ in range(6)]
    t = dynamicsymbols._t
    state = {}
    for name, value, rate in zip(model.coordinates, q, qd):
        state[dynamicsymbols(name).diff(t)] = rate
        state[dynamicsymbols(name)] = value
    M_num, f_num = eq.compile().evaluate(q, qd)
    np.testing.assert_allclose(numbers_of(list(M), result.intermediates, state).reshape(6, 6),
                               M_num, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(numbers_of(list(f), result.intermediates, state), f_num,
                               rtol=1e-10, atol=1e-12)
    # ... and flat, every name put back
    flat = eq.to_sympy(flat=True)
    assert flat.intermediates == [] and not (flat[1].free_symbols & {n for n, _ in
                                                                   result.intermediates})
    np.testing.assert_allclose(numbers_of([flat[1][0]], [], state), f_num[:1], rtol=1e-10)


def test_to_sympy_of_a_small_model_has_no_names(examples):
    eq = appell.derive(appell.load(examples / "planar_2r.yaml"))
    result = eq.to_sympy()
    assert result.intermediates == []
    flat = eq.to_sympy(flat=True)
    assert flat[0] == result[0] and flat[1] == result[1]


# ---- docstrings -----------------------------------------------------------------------------


def public_docs():
    for name in appell.__all__:
        item = getattr(appell, name)
        yield name, item.__doc__ or ""
        if inspect.isclass(item):
            for member, value in vars(item).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if isinstance(value, property):  # its docstring, and its getter's signature
                    yield f"{name}.{member}", (value.__doc__ or "") + (value.fget.__doc__ or "")
                else:  # through getattr: a static method's own docstring
                    yield f"{name}.{member}", getattr(item, member).__doc__ or ""


def test_docstrings_name_files_that_exist_and_python_types():
    docs = dict(public_docs())
    for name, doc in docs.items():
        assert "MODEL_FORMAT.md" not in doc, name
        assert "anonymous namespace" not in doc and "appell::" not in doc, name
        assert ": handle" not in doc, name  # pybind11's word for "any object"
    assert "-> appell._appell.Compiled" in docs["Equations.compile"]
    assert "q: numpy.typing.ArrayLike" in docs["Compiled.evaluate"]
    for name in ("load", "linearize", "check", "report", "import_urdf", "statics"):
        assert docs[name].strip(), name
    assert "docs/model-format.md" in docs["load"]
    assert "docs/model-format.md" in docs["Model.from_yaml"]


def test_the_model_builder_docstring_example_runs():
    doc = appell.ModelBuilder.__doc__
    code = "\n".join(line[4:] for line in doc.splitlines() if line.startswith("    "))
    scope = {"appell": appell}
    exec(code, scope)
    assert scope["model"].coordinates == ["theta"] and scope["model"].particles == ["bob"]
