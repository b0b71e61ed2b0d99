"""Equations.split(), coriolis() and gravity() (issue 29, item 1): M q'' + C q' + g = Q as SymPy
matrices, checked against the textbook's planar 2R arm, the skew-symmetry of dM/dt - 2C with
dM/dt by SymPy's own chain rule, and C q' + g - Q = -f against to_sympy()."""

import pytest

sympy = pytest.importorskip("sympy")
from sympy.physics.mechanics import dynamicsymbols  # noqa: E402

import appell  # noqa: E402


def is_zero(matrix):
    return sympy.simplify(sympy.expand_trig(sympy.expand(matrix))) == sympy.zeros(*matrix.shape)


def test_planar_2r_against_the_textbook(examples):
    eq = appell.derive(appell.load(examples / "planar_2r.yaml"))
    C, g = eq.coriolis(), eq.gravity()
    q1, q2 = dynamicsymbols("q1 q2")
    t = dynamicsymbols._t
    M, l, grav = sympy.symbols("M l g")
    h = -M * l**2 * sympy.sin(q2) / 2  # -m2 l1 lc2 sin(q2) with m2 = M, l1 = l, lc2 = l/2
    C_book = sympy.Matrix([[h * q2.diff(t), h * (q1.diff(t) + q2.diff(t))],
                           [-h * q1.diff(t), 0]])
    assert is_zero(C - C_book)
    g_book = sympy.Matrix([M * grav * l * (sympy.Rational(3, 2) * sympy.cos(q1)
                                           + sympy.cos(q1 + q2) / 2),
                           M * grav * l * sympy.cos(q1 + q2) / 2])
    assert is_zero(g - g_book)


@pytest.mark.parametrize("name", ["double_pendulum.yaml", "heavy_top.yaml", "planar_2r.yaml"])
def test_mass_rate_minus_twice_coriolis_is_skew(examples, name):
    eq = appell.derive(appell.load(examples / name))
    parts = eq.split()
    M, C = parts["mass_matrix"], parts["coriolis"]
    assert not is_zero(C)
    N = M.diff(dynamicsymbols._t) - 2 * C  # SymPy's d/dt: the chain rule through q(t)
    assert is_zero(N + N.T)


@pytest.mark.parametrize("name", ["double_pendulum.yaml", "spring_damper_cart.yaml",
                                  "bead_on_hoop.yaml"])
def test_the_split_reproduces_the_forcing(examples, name):
    eq = appell.derive(appell.load(examples / name), split=True)
    _, f = eq.to_sympy()
    parts = eq.split()
    qd = sympy.Matrix([dynamicsymbols(c).diff(dynamicsymbols._t) for c in eq.coordinates])
    rest = parts["coriolis"] * qd + parts["gravity"] - parts["loads"] + f
    if "mass_rate" in parts:
        rest += (parts["mass_rate"] + parts["gyroscopic"]) * qd + parts["prescribed_motion"]
    assert is_zero(rest)
    assert ("mass_rate" in parts) == (name == "bead_on_hoop.yaml")


def test_no_split_of_the_minimal_form(examples):
    eq = appell.derive(appell.load(examples / "slider_crank.yaml"), minimal=True)
    with pytest.raises(ValueError):
        eq.coriolis()
