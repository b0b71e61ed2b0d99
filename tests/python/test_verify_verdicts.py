"""appell.verify's three verdicts (issue 27): "equal", "agree numerically" or "differ" (with a
witness); symbolic=False compares at the random states only."""

import pytest

import appell

# A particle at [1, 0, b] in a frame turned about z, x, y: its rows were once "differs" at 2.6e-16
# because the symbolic difference did not simplify to 0 within the budget.
PARTICLE = """name: particle-zxy
parameters: {m: 1.0, b: 0.5, g: 9.81}
coordinates: [psi, phi, theta]
frames:
  f: {rotation: "rot_z(psi)*rot_x(phi)*rot_y(theta)"}
particles:
  p: {frame: f, mass: m, position: [1, 0, b]}
gravity: [0, 0, -g]
"""

# A rolling disk with independent speeds: its minimal form's M has a determinant in cos(theta)^2.
DISK = """name: rolling-disk
parameters: {m: 1.0, r: 0.3, g: 9.81}
coordinates: [x, y, psi, theta, phi]
frames:
  heading: {translation: [x, y, 0], rotation: rot_z(psi)}
  lean: {parent: heading, rotation: rot_x(theta)}
  disk: {parent: lean, translation: [0, 0, r], rotation: rot_y(phi)}
bodies:
  wheel: {frame: disk, mass: m, inertia: {disk: {radius: r, axis: y}}}
gravity: [0, 0, -g]
constraints:
  - {name: roll_x, nonholonomic: "dot(x) - r*cos(psi)*dot(phi)"}
  - {name: roll_y, nonholonomic: "dot(y) - r*sin(psi)*dot(phi)"}
independent: [psi, theta, phi]
"""


@pytest.mark.parametrize("text", [PARTICLE, DISK], ids=["particle-zxy", "rolling-disk"])
def test_no_row_of_an_agreeing_model_differs(text):
    rows = appell.verify(appell.Model.from_yaml(text))
    for r in rows:
        assert r["verdict"] in {"equal", "agree numerically"}, r
        assert r["agrees"] is True
        assert r["witness"] is None
        assert r["max_error"] <= r["bound"]
        assert (r["verdict"] == "equal") == (r["symbolic_test"] == "zero")
    assert rows[0]["verdict"] == "equal"  # Lagrange against itself

def test_numeric_only_never_says_equal():
    rows = appell.verify(appell.Model.from_yaml(PARTICLE), symbolic=False, states=5)
    assert len(rows) == 5
    for r in rows:
        assert r["verdict"] == "agree numerically", r
        assert r["symbolic_test"] == "not run"
        assert r["symbolic"] is False
        assert r["size_after"] == 0
        assert r["states"] == 5

def test_a_tolerance_that_is_not_positive_is_refused():
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(appell.ModelError, match="tolerance must be a positive number"):
            appell.verify(appell.Model.from_yaml(PARTICLE), symbolic=False, tolerance=bad)

def test_a_difference_has_a_witness_state():
    # A tolerance of 1e-300 asks for identical numbers (0 is refused: a tolerance is positive):
    # rounding makes some row differ, and says where.
    rows = appell.verify(appell.Model.from_yaml(PARTICLE), symbolic=False, tolerance=1e-300)
    differing = [r for r in rows if r["verdict"] == "differ"]
    assert differing
    for r in differing:
        assert r["agrees"] is False
        w = r["witness"]
        assert set(w) == {"t", "q", "qd", "entry", "reference", "other", "error", "bound"}
        assert len(w["q"]) == 3 and len(w["qd"]) == 3
        assert w["entry"] == r["first_difference"]
        assert w["error"] > w["bound"]
        assert w["reference"] != w["other"]

def test_a_verdict_needs_a_state():
    with pytest.raises(ValueError):
        appell.verify(appell.Model.from_yaml(PARTICLE), states=0)
