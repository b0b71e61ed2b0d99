"""appell.load, Model.from_yaml, ModelBuilder, Model's attributes, and the exceptions."""

import numpy as np
import pytest

import appell
from conftest import chain_yaml


def test_load_gives_the_model_with_its_names_and_initial_state(examples):
    model = appell.load(examples / "double_pendulum.yaml")
    assert isinstance(model, appell.Model)
    assert model.name == "double-pendulum"
    assert model.dof == 2
    assert model.coordinates == ["q1", "q2"]
    assert model.parameters == {"m1": 1.0, "m2": 0.5, "l1": 1.0, "l2": 0.7, "g": 9.81}
    assert list(model.parameters) == ["m1", "m2", "l1", "l2", "g"]  # the model's order
    assert model.particles == ["bob1", "bob2"]
    assert model.frames == ["rod1", "rod2"]
    assert model.source.endswith("double_pendulum.yaml")
    assert model.q0.dtype == np.float64 and model.q0.shape == (2,)
    np.testing.assert_array_equal(model.q0, [0.8, -0.4])
    np.testing.assert_array_equal(model.qd0, [0.0, 1.0])
    assert "double-pendulum" in repr(model)


def test_load_takes_a_str_or_a_path(examples):
    assert appell.load(str(examples / "planar_2r.yaml")).name == "planar-2r"


def test_model_attributes_of_inputs_constraints_and_flexible_bodies(examples):
    cart = appell.load(examples / "spring_damper_cart.yaml")
    assert cart.inputs == ["u"]
    hoop = appell.load(examples / "bead_on_hoop.yaml")
    assert hoop.constraints == [] or isinstance(hoop.constraints, list)
    slider = appell.load(examples / "slider_crank.yaml")
    assert len(slider.constraints) > 0
    blade = appell.load(examples / "fem" / "rotating_blade.yaml")
    assert len(blade.flexible_bodies) == 1


def test_from_yaml_reads_text():
    model = appell.Model.from_yaml(chain_yaml(3))
    assert model.coordinates == ["q1", "q2", "q3"]
    assert model.source == "<string>"


def test_the_builder_makes_the_same_model_as_the_file(examples):
    b = appell.ModelBuilder("planar-2r")
    b.parameter("M", 1.0).parameter("l", 0.5).parameter("M_S", 0.2).parameter("g", 9.81)
    b.coordinate("q1").coordinate("q2")
    b.frame("link1", rotation="rot_z(q1)")
    b.frame("link2", parent="link1", translation=["l", 0, 0], rotation="rot_z(q2)")
    b.body("rod1", "link1", mass="M", com=["l/2", 0, 0],
           inertia={"rod": {"length": "l", "axis": "x"}})
    b.body("rod2", "link2", mass="M", com=["l/2", 0, 0],
           inertia={"rod": {"length": "l", "axis": "x"}})
    b.gravity([0, "-g", 0])
    b.force([0, "-M_S*g", 0], on="link2", at=["l", 0, 0])
    built = b.build()
    from_file = appell.load(examples / "planar_2r.yaml")
    assert built.coordinates == from_file.coordinates
    a = appell.derive(built).compile()
    c = appell.derive(from_file).compile()
    rng = np.random.default_rng(1)
    q, qd = rng.uniform(-2, 2, (5, 2)), rng.uniform(-2, 2, (5, 2))
    for x, y in zip(a.evaluate(q, qd), c.evaluate(q, qd)):
        np.testing.assert_allclose(x, y, rtol=1e-13, atol=1e-13)


def test_the_builder_takes_every_kind_of_item():
    b = appell.ModelBuilder("everything", source="")
    b.description("a test of every call")
    b.parameter("m", 2).parameter("k", "10").parameter("c", 0.5).parameter("r", 0.1)
    b.coordinate("x", initial=0.1).coordinate("y", 0, velocity=0.2).coordinate("phi")
    b.input("u")
    b.prescribed("alpha", "sin(t)")
    b.prescribed("beta")
    b.frame("cart", translation=["x", "y", 0])
    b.frame("wheel", parent="cart", rotation=[["cos(phi)", "-sin(phi)", 0],
                                              ["sin(phi)", "cos(phi)", 0], [0, 0, 1]])
    b.body("disk", "wheel", mass="m", inertia={"disk": {"radius": "r", "axis": "z"}})
    b.body("box", "cart", mass=1, inertia={"box": {"size": [0.1, 0.2, 0.3]}})
    b.body("ball", "cart", mass=1, com=[0, 0, 1], inertia={"sphere": {"radius": "r"}})
    b.body("can", "cart", mass=1, inertia={"cylinder": {"radius": "r", "length": 1, "axis": "y"}})
    b.body("plate", "cart", mass=1, inertia=[1, 1, 2, 0, 0, 0])
    b.body("block", "cart", mass=1, inertia=[[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    b.particle("p", "wheel", mass="m", position=["r", 0, 0])
    b.gravity([0, 0, "-9.81"])
    b.force(["u", 0, 0], on="cart")
    b.torque([0, 0, "-c*dot(phi)"], on="wheel", in_="cart")
    b.spring("world", ("cart", [0, 0, 0]), stiffness="k", rest_length=0)
    b.damper(("world", [0, 0, 0]), "cart", coefficient="c")
    b.generalized_force("y", "-c*dot(y) + beta")
    b.potential("k*phi^2/2")
    model = b.build()
    assert model.description == "a test of every call"
    assert model.inputs == ["u"] and model.prescribed == ["beta"]
    assert model.bodies == ["disk", "box", "ball", "can", "plate", "block"]
    eq = appell.derive(model, raw=True)
    M, f = eq.compile({"u": 1.0, "beta": "cos(t)"}).evaluate([0.3, 0.2, 0.1], [0, 0, 0], t=0.5)
    assert M.shape == (3, 3) and np.all(np.isfinite(M)) and np.all(np.isfinite(f))


def test_the_builder_with_constraints_and_independent_speeds():
    b = appell.ModelBuilder("bead")
    b.parameter("m", 1).parameter("g", 9.81).parameter("R", 1)
    b.coordinate("x", 1).coordinate("y", 0)
    b.frame("bead", translation=["x", "y", 0])
    b.particle("p", "bead", mass="m")
    b.gravity([0, "-g", 0])
    b.holonomic_constraint("hoop", "x^2 + y^2 - R^2")
    b.independent(["y"])
    model = b.build()
    assert model.constraints == ["hoop"] and model.independent == ["y"]
    b2 = appell.ModelBuilder("sleigh")
    b2.coordinate("x").coordinate("y").coordinate("th")
    b2.frame("body", translation=["x", "y", 0], rotation="rot_z(th)")
    b2.body("b", "body", mass=1, inertia=[1, 1, 1, 0, 0, 0])
    b2.nonholonomic_constraint("blade", "-sin(th)*dot(x) + cos(th)*dot(y)")
    assert appell.derive(b2.build()).multipliers == ["lambda_blade"]


# --- errors --------------------------------------------------------------------------------


def test_a_bad_model_file_is_a_model_error_with_its_place(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("name: bad\nparameters: {m: 1}\ncoordinates: [q]\n"
                    "frames:\n  a: {parent: nowhere, rotation: rot_z(q)}\n")
    with pytest.raises(appell.ModelError) as error:
        appell.load(path)
    e = error.value
    assert isinstance(e, ValueError)
    assert e.file == str(path)
    assert e.line == 5 and e.column > 0
    assert e.name == "nowhere"
    assert str(e).startswith(f"{path}:5:")
    assert e.message == str(e)


def test_a_missing_file_is_a_model_error_at_the_path(tmp_path):
    with pytest.raises(appell.ModelError) as error:
        appell.load(tmp_path / "none.yaml")
    assert error.value.file == str(tmp_path / "none.yaml")
    assert error.value.line == 0


def test_a_builder_mistake_names_the_item():
    b = appell.ModelBuilder("m")
    b.coordinate("q")
    b.frame("arm", rotation="rot_z(q)")
    with pytest.raises(appell.ModelError) as error:
        b.body("rod", "arm", mass=-1)
    assert error.value.file == "bodies.rod.mass"
    assert "positive" in str(error.value)
    with pytest.raises(appell.ModelError) as error:
        b.parameter("a", "b + 1")
    assert error.value.name == "b"


def test_bad_arguments_are_type_and_value_errors_naming_them():
    b = appell.ModelBuilder("m")
    with pytest.raises(TypeError, match="^value: "):
        b.parameter("a", [1])
    with pytest.raises(ValueError, match="^translation: expected 3"):
        b.frame("f", translation=[1, 2])
    with pytest.raises(TypeError, match="^inertia: expected a list"):
        b.body("x", mass=1, inertia="heavy")
    with pytest.raises(ValueError, match="^inertia: unknown shape"):
        b.body("x", mass=1, inertia={"cone": {"radius": 1}})
    with pytest.raises(TypeError, match="^path: "):
        appell.load(42)


def test_computation_error_is_a_runtime_error():
    assert issubclass(appell.ComputationError, RuntimeError)
    assert issubclass(appell.ModelError, ValueError)
    assert appell.ModelError.__module__ == "appell"


def test_a_self_alias_and_a_billion_laughs_are_model_errors_not_crashes(tmp_path):
    # Issue 25: `name: &n [*n]` overflowed the stack (Python died of a segmentation fault), ten
    # levels of aliases ran for minutes. Both are located errors at the alias, at once.
    with pytest.raises(appell.ModelError) as error:
        appell.Model.from_yaml("name: &n [*n]\ncoordinates: [q]\n", "m.yaml")
    assert (error.value.line, error.value.column) == (1, 11)
    assert error.value.name == "*n"
    laughs = "name: m\ncoordinates: [q]\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{k}: &l{k} [" + ", ".join([f"*l{k - 1}"] * 10) + "]\n" for k in range(1, 10))
    path = tmp_path / "laughs.yaml"
    path.write_text(laughs)
    with pytest.raises(appell.ModelError) as error:
        appell.load(path)
    assert error.value.line == 8
    assert "larger than 250000 nodes" in str(error.value)
