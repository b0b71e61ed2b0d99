"""Equations.to_sympy against SymPy mechanics' own KanesMethod and LagrangesMethod: the symbolic
difference simplifies to zero."""

import pytest

sympy = pytest.importorskip("sympy")
from sympy.physics.mechanics import (  # noqa: E402
    KanesMethod, LagrangesMethod, Particle, Point, ReferenceFrame, RigidBody, dynamicsymbols,
    inertia)

import appell  # noqa: E402


def assert_same(a, b):
    difference = sympy.simplify(sympy.expand(a - b))
    assert difference == sympy.zeros(*difference.shape), difference


def test_the_seed_000_robot_against_kanes_method(examples):
    """The planar 2R robot of seed 000 (two rods, a point load at the tip) by Kane's method."""
    q1, q2, u1, u2 = dynamicsymbols("q1 q2 u1 u2")
    M, l, M_S, g = sympy.symbols("M l M_S g")
    N = ReferenceFrame("N")
    A = N.orientnew("A", "Axis", (q1, N.z))
    B = A.orientnew("B", "Axis", (q2, A.z))
    A.set_ang_vel(N, u1 * N.z)
    B.set_ang_vel(A, u2 * A.z)
    O = Point("O")
    O.set_vel(N, 0)
    G1 = O.locatenew("G1", l / 2 * A.x)
    J = O.locatenew("J", l * A.x)
    G2 = J.locatenew("G2", l / 2 * B.x)
    P = J.locatenew("P", l * B.x)
    for point, frame, base in ((G1, A, O), (J, A, O), (G2, B, J), (P, B, J)):
        point.v2pt_theory(base, N, frame)
    rod = M * l**2 / 12
    bodies = [RigidBody("rod1", G1, A, M, (inertia(A, 0, rod, rod), G1)),
              RigidBody("rod2", G2, B, M, (inertia(B, 0, rod, rod), G2))]
    loads = [(G1, -M * g * N.y), (G2, -M * g * N.y), (P, -M_S * g * N.y)]
    kane = KanesMethod(N, q_ind=[q1, q2], u_ind=[u1, u2],
                       kd_eqs=[q1.diff() - u1, q2.diff() - u2])
    kane.kanes_equations(bodies, loads)
    speeds = {u1: q1.diff(), u2: q2.diff()}
    mass_matrix = kane.mass_matrix.subs(speeds)
    forcing = kane.forcing.subs(speeds)

    model = appell.load(examples / "planar_2r.yaml")
    for method in ("gibbs-appell", "lagrange"):
        Ma, fa = appell.derive(model, method).to_sympy()
        assert Ma.shape == (2, 2) and fa.shape == (2, 1)
        assert Ma.free_symbols >= {M, l}
        assert_same(Ma, mass_matrix)
        assert_same(fa, forcing)


def test_the_double_pendulum_against_lagranges_method(examples):
    q1, q2 = dynamicsymbols("q1 q2")
    m1, m2, l1, l2, g, t = sympy.symbols("m1 m2 l1 l2 g t")
    N = ReferenceFrame("N")
    O = Point("O")
    O.set_vel(N, 0)
    P1 = O.locatenew("P1", l1 * sympy.sin(q1) * N.x - l1 * sympy.cos(q1) * N.y)
    P2 = P1.locatenew("P2", l2 * sympy.sin(q1 + q2) * N.x - l2 * sympy.cos(q1 + q2) * N.y)
    P1.set_vel(N, P1.pos_from(O).dt(N))
    P2.set_vel(N, P2.pos_from(O).dt(N))
    bob1, bob2 = Particle("bob1", P1, m1), Particle("bob2", P2, m2)
    bob1.potential_energy = m1 * g * P1.pos_from(O).dot(N.y)
    bob2.potential_energy = m2 * g * P2.pos_from(O).dot(N.y)
    from sympy.physics.mechanics import Lagrangian

    lagrange = LagrangesMethod(Lagrangian(N, bob1, bob2), [q1, q2])
    lagrange.form_lagranges_equations()

    model = appell.load(examples / "double_pendulum.yaml")
    Ma, fa = appell.derive(model, "lagrange").to_sympy()
    assert_same(Ma, lagrange.mass_matrix)
    assert_same(fa, lagrange.forcing)
    # coordinates are dynamicsymbols, velocities their derivatives, as in SymPy mechanics
    assert q1.diff() in fa.atoms(sympy.Derivative) or q2.diff() in fa.atoms(sympy.Derivative)


def test_inputs_and_constraints_in_sympy(examples):
    cart = appell.load(examples / "spring_damper_cart.yaml")
    M, f = appell.derive(cart).to_sympy()
    u = dynamicsymbols("u")
    assert u in f.atoms(sympy.Function)
    slider = appell.load(examples / "slider_crank.yaml")
    M, f, A, b = appell.derive(slider).to_sympy(constraints=True)
    assert A.shape == (len(slider.constraints), slider.dof) and b.shape[0] == A.shape[0]
