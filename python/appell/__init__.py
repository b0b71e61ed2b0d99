"""appell: equations of motion by Lagrange II, Gibbs-Appell, D'Alembert, Gauss and Nielsen.

Python bindings over the C++ library (docs/python.md)::

    import appell
    model = appell.load("examples/planar_2r.yaml")
    eq = appell.derive(model, method="gibbs-appell")
    print(eq.text())                       # or eq in a notebook: typeset
    M, f = eq.to_sympy()                   # SymPy matrices, SymPy mechanics' conventions
    c = eq.compile()
    M, f = c.evaluate([0.3, -0.5], [1.0, 0.0])
    d = appell.Dynamics(model)             # numbers without forming the equations
    qdd = d.accelerations([0.3, -0.5], [1.0, 0.0])
    result = appell.simulate(model, t_end=2.0)
    result.t, result.q, result.E
    lin = appell.linearize(model, q=[0.3, -0.5])   # A, B, eigenvalues, modes
    robot = appell.load("examples/urdf/ur5_robot.urdf", gravity=[0, 0, -9.81])

Every command of the command line has its function: derive, verify, simulate, inverse, statics,
linearize, check, report, codegen, fem_modes, sweep and import_urdf (docs/python.md).

Long calls (derive, verify, simulate, statics, linearize, check, report, fem_modes, compile) release the GIL and stop on
Ctrl-C with KeyboardInterrupt. Bad input raises ModelError (a ValueError with .file, .line,
.column, .name); a computation that fails on valid input raises ComputationError.
"""

from . import _appell
from ._appell import (  # noqa: F401  (the public names)
    Compiled,
    ComputationError,
    Dynamics,
    Equations,
    Model,
    ModelBuilder,
    ModelError,
    codegen,
    verify,
)

from ._sweep import SweepResult, sweep  # noqa: E402,F401

__version__ = _appell.__version__

__all__ = [
    "CheckResult",
    "Compiled",
    "ComputationError",
    "Dynamics",
    "Equations",
    "EquilibriaResult",
    "InverseResult",
    "LinearizationResult",
    "Model",
    "ModelBuilder",
    "ModelError",
    "ModesResult",
    "RegressorResult",
    "ReportResult",
    "SimulationResult",
    "check",
    "codegen",
    "derive",
    "fem_modes",
    "import_urdf",
    "inverse",
    "linearize",
    "load",
    "regressor",
    "base_parameters",
    "report",
    "simulate",
    "statics",
    "sweep",
    "SweepResult",
    "verify",
]

_METHODS = ("lagrange", "gibbs-appell", "dalembert", "gauss", "nielsen")


def _check_type(name, value, types, what):
    if not isinstance(value, types) or isinstance(value, bool) and bool not in types:
        raise TypeError(f"{name}: expected {what}, got {type(value).__name__}")


def _number(name, value, positive=False, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            import numpy

            if isinstance(value, numpy.number) and not isinstance(value, numpy.bool_):
                value = float(value)
            else:
                raise TypeError
        except TypeError:
            raise TypeError(f"{name}: expected a number, got {type(value).__name__}") from None
    value = float(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name}: not a finite number ({value})")
    if positive and not value > 0:
        raise ValueError(f"{name}: must be > 0, got {value}")
    return value


def _method(method, allow_none=False):
    if method is None and allow_none:
        return ""  # none given: the bindings route as the command line without --method
    what = "a method name (str) or None" if allow_none else "a method name (str)"
    _check_type("method", method, (str,), what)
    if method not in _METHODS:
        raise ValueError(f"method: unknown method {method!r} ({', '.join(_METHODS)})")
    return method


def _model(model, allow_equations=False):
    kinds = (Model, Equations) if allow_equations else (Model,)
    if not isinstance(model, kinds):
        what = "an appell.Model or appell.Equations" if allow_equations else "an appell.Model"
        raise TypeError(f"model: expected {what}, got {type(model).__name__}")
    return model


# ---------------------------------------------------------------------------------------------
# Models


def _path(name, value):
    import os

    _check_type(name, value, (str, os.PathLike), "a path (str or os.PathLike)")
    return os.fspath(value)


def _urdf_options(gravity, joint_damping, symbolic_inertia, floating_base, exact_angles):
    if gravity is not None:
        if isinstance(gravity, (str, bytes)) or not hasattr(gravity, "__len__") or len(gravity) != 3:
            raise TypeError(f"gravity: expected three numbers [gx, gy, gz], got {gravity!r}")
        gravity = [_number(f"gravity[{i}]", g) for i, g in enumerate(gravity)]
    for name, value in (("joint_damping", joint_damping), ("symbolic_inertia", symbolic_inertia),
                        ("floating_base", floating_base), ("exact_angles", exact_angles)):
        _check_type(name, value, (bool,), "True or False")
    return gravity, joint_damping, symbolic_inertia, floating_base, exact_angles


def _warn(warnings_list):
    import warnings

    for text in warnings_list:
        warnings.warn(text, UserWarning, stacklevel=3)


def load(path, *, gravity=None, joint_damping=False, symbolic_inertia=False,
         floating_base=False, exact_angles=False):
    """The model in the file at `path`, a model file (YAML, docs/model-format.md) or a robot's
    URDF, told apart by content and checked as `appell` checks it.

    The URDF options are the command line's (`--gravity`, `--joint-damping`,
    `--symbolic-inertia`, `--floating-base`, `--exact-angles`): gravity [gx, gy, gz] in m/s^2 in the root link's
    axes (default [0, 0, -9.81]); joint_damping: each joint's <dynamics damping=c> as the
    generalized force -c*dot(q); symbolic_inertia: each link's mass, centre of mass and inertia
    as parameters (m_LINK, cx_LINK, .., Ixx_LINK, ..) with the URDF's values as defaults;
    floating_base: the root link floats free (ROOT_x .. ROOT_z, a unit quaternion ROOT_e0 ..
    ROOT_e3, speeds ROOT_vx .. and ROOT_wx ..); exact_angles: each <origin rpy> angle as
    written (without it an angle within 1e-9 of a multiple of pi/12, such as 1.57079632679, is
    read as that multiple, pi/2). A YAML model says all of this itself: giving one
    of them with it is a ValueError naming the option. What the URDF translation warns about
    (mimic joints read as independent coordinates, ...) comes as a UserWarning.

    Raises ModelError located at the file (file, line, column, name) for a missing file or an
    invalid model.
    """
    path = _path("path", path)
    options = _urdf_options(gravity, joint_damping, symbolic_inertia, floating_base, exact_angles)
    model, warnings_list = _appell._load(path, *options)
    _warn(warnings_list)
    return model


def import_urdf(path, *, gravity=None, joint_damping=False, symbolic_inertia=False,
                floating_base=False, exact_angles=False, out=None):
    """A URDF robot as an editable appell model file: its YAML text (`appell import`).

    The options are load()'s. out: also write the text to this file (it must not be the URDF).
    Read back (Model.from_yaml, or load of the file) it is the model load(path, ...) gives. A
    file that is not a URDF (an appell model file) is a ModelError saying that import reads URDF.
    The translation's warnings come as UserWarning.
    """
    path = _path("path", path)
    options = _urdf_options(gravity, joint_damping, symbolic_inertia, floating_base, exact_angles)
    out = "" if out is None else _path("out", out)
    text, warnings_list = _appell._import_urdf(path, *options, out)
    _warn(warnings_list)
    return text


# ---------------------------------------------------------------------------------------------
# Equations


def derive(model, method="gibbs-appell", *, order=1, values=None, raw=False, minimal=False,
           show=None, split=False):
    """The equations of motion M(q, t) q'' = f(q, q', t) of `model`, as `appell derive` forms
    them.

    method: "lagrange", "gibbs-appell" (default), "dalembert", "gauss" or "nielsen".
    order: Gibbs-Appell equations of order m >= 1 (the energy of the (m+1)-th derivatives).
    values: numbers substituted into the printed equations ({"M": 2.0}: parameters, inputs).
    raw: as formed (fast, for compile()), not made readable.
    minimal: the minimal form in the model's independent speeds.
    show: also "compulsion" (Gauss's Z) or "inertial-forces" (of a carrier frame).
    split: also M q'' + C(q, q') q' + g(q) = Q (text(), latex(), json() print it; split(),
        coriolis() and gravity() return it, and form it on first use without this).

    A model with generalized speeds (speeds:, a frame turned by rot_quat) gives its equations in
    them, M~(q, t) u' = f~(q, u, t) with q' = W u (method "gibbs-appell" or "dalembert"):
    .speeds names them; text(), latex() and json() print them and appell.simulate integrates
    them.
    """
    _model(model)
    _method(method)
    if isinstance(order, bool) or not isinstance(order, int):
        raise TypeError(f"order: expected an int, got {type(order).__name__}")
    _check_type("raw", raw, (bool,), "True or False")
    _check_type("minimal", minimal, (bool,), "True or False")
    if show is not None:
        _check_type("show", show, (str,), "'compulsion' or 'inertial-forces'")
    _check_type("split", split, (bool,), "True or False")
    return _appell._derive(model, method, order, values, raw, minimal, show, split)


def _latex_for_notebook(self):
    # What `appell derive --format latex` prints, without its comment lines: MathJax typesets
    # the align (and equation) environments as they are.
    lines = [line for line in self.latex().splitlines() if not line.lstrip().startswith("%")]
    return "\n".join(lines)


def _equations_repr(self):
    what = "minimal form" if self.minimal else f"{self.method}"
    if self.speeds:
        what += f", in the speeds ({', '.join(self.speeds)})"
    if self.order > 1:
        what += f", order {self.order}"
    return (f"<appell.Equations of '{self.model.name}' by {what}: {self.dof} coordinates "
            f"({', '.join(self.coordinates)})>")


def _to_sympy(self, constraints=False, *, flat=False):
    from ._sympy import equations_to_sympy

    _check_type("constraints", constraints, (bool,), "True or False")
    _check_type("flat", flat, (bool,), "True or False")
    return equations_to_sympy(self, constraints, flat)


def _split(self):
    from ._sympy import split_to_sympy

    return split_to_sympy(self)


Equations._repr_latex_ = _latex_for_notebook
Equations.split = _split
Equations.split.__doc__ = """M q'' + C(q, q') q' + g(q) = Q(q, q', t) as a dict of SymPy matrices.

Keys: "mass_matrix" (M), "coriolis" (C, n x n, from the Christoffel symbols of the first kind,
so that dM/dt - 2C is skew-symmetric), "gravity" (g = dV/dq of gravity, springs and potential
loads, n x 1), "loads" (Q of every other load, n x 1); for a model with prescribed or carrier
motion also "mass_rate" (dM/dt at fixed q), "gyroscopic" (G, skew-symmetric) and
"prescribed_motion" (p, free of q'), with M q'' + C q' + (dM/dt + G) q' + p + g = Q. With
constraints it is the split of the unconstrained part (A^T lambda stays on the right). Symbols
as in to_sympy(). Raises ValueError for the minimal form and equations in generalized speeds.
"""
Equations.coriolis = lambda self: self.split()["coriolis"]
Equations.coriolis.__doc__ = "C(q, q') as a SymPy matrix (n x n): split()['coriolis']."
Equations.gravity = lambda self: self.split()["gravity"]
Equations.gravity.__doc__ = "g(q) = dV/dq as a SymPy matrix (n x 1): split()['gravity']."
Equations.__repr__ = _equations_repr
Equations.__str__ = lambda self: self.text()
Equations.to_sympy = _to_sympy
Equations.to_sympy.__doc__ = """(M, f) as SymPy matrices in SymPy mechanics' conventions.

Coordinates are sympy.physics.mechanics.dynamicsymbols (functions of the Symbol t), their
velocities and accelerations those functions' time derivatives, parameters Symbols of their
names, inputs and unspecified prescribed functions dynamicsymbols. With constraints=True,
(M, f, A, b) of M q'' = f + A^T lambda, A q'' = b.

Equations that text() writes through named intermediates (a large model such as a 6-joint arm:
c3, R_3_11, omega_4x, ... or z1, z2, ...) come the same way: M and f in terms of those names,
Symbols, and the result's .intermediates the list of (Symbol, definition) in order of
definition, each in terms of those before it (the shape of sympy.cse's replacements). The
result is a tuple, so M, f = eq.to_sympy() still unpacks; .intermediates is [] for equations
without names. The names stand for expressions of the coordinates: put them back (flat=True, or
result.substituted()) before differentiating in t. flat=True gives every entry as one
expression of the model's symbols, as the smaller models always are (result.substituted(),
with .intermediates []): quick to build, since SymPy shares what is substituted, but for a
large model millions of characters once printed, and slow to simplify.
"""
# ---------------------------------------------------------------------------------------------
# Results


class _Result:
    """A result: numpy arrays and numbers as attributes; repr lists them."""

    _fields = ()

    def __init__(self, data):
        self.__dict__.update(data)

    def __repr__(self):
        parts = []
        for name in self._fields:
            value = getattr(self, name)
            shape = getattr(value, "shape", None)
            parts.append(f"{name}={shape}" if shape is not None else f"{name}={value!r}")
        return f"<appell.{type(self).__name__} {' '.join(parts)}>"


class SimulationResult(_Result):
    """What appell.simulate integrated: the CSV of `appell simulate` as numpy arrays.

    t (N,); q, qd, qdd (N, n) in the order of .coordinates; T, V, E (N,) the kinetic, potential
    and total energy; lam (N, m) the multipliers (named by .multipliers) with constraints, (N, 0)
    without; u, udot (N, p) the generalized speeds (named by .speeds) and their rates for a model
    with speeds, (N, 0) without. complete is False when the integrator stopped early (the rows reached are kept and
    .message says why). stats: steps, rhs_evaluations, energy_drift, conservative, ...
    """

    _fields = ("t", "q", "complete")


class InverseResult(_Result):
    """Driving forces Q = M q'' - f (N, n) at the times t (N,) along q, qd, qdd (N, n); method:
    "recursions" (no equations formed) or the principle of the equations evaluated; forces: what
    Q's columns act on (the coordinates, or for a model in generalized speeds its p speeds:
    Q is then (N, p), tau = M~ u' - f~ with u, u' taken from the motion)."""

    _fields = ("t", "Q")


class EquilibriaResult(_Result):
    """What `appell statics --json` prints, as attributes: generalized_forces (readable text, one
    per coordinate), equilibria (a list of dicts, below), free_coordinates (names), and for a
    moving model inertial_forces (text) and relative ({"motion", "prescribed", "carrier",
    "steady"}; both None otherwise); besides best_residual and coordinates.

    Each equilibrium: q (n,), stable, stability ("stable", "unstable", "neutral"),
    stiffness_eigenvalues (ascending), neutral_directions (k, n): one zero-stiffness displacement
    a row, residual, lam (the multipliers, (m,): the JSON's "lambda") and, with holonomic
    constraints, redundant_constraints; for a moving model gyroscopic_stabilization; with
    modes=True, modes (a list of dicts: eigenvalue (complex), natural_frequency, damping_ratio
    (None for a zero eigenvalue), unstable) and, when they could not be formed,
    modes_unavailable (why).
    """

    _fields = ("generalized_forces", "equilibria")


class LinearizationResult(_Result):
    """What `appell linearize --json --modes` prints, as attributes: the state-space model
    dx/dt = A x + B u about the operating point.

    states (names: the independent coordinates, then their speeds "dot(NAME)"), inputs (names,
    the columns of B); A (states, states) and B (states, inputs) as numpy arrays; eigenvalues
    (complex, ordered by modulus); eigenvalue_groups (a list of dicts: eigenvalue (complex,
    Im >= 0), conjugate_pair, count: a conjugate pair once, repeated values such as the zero
    modes once with their count); modes (one dict per mode, as `appell linearize --modes` lists
    them: the groups' eigenvalue, conjugate_pair and count with natural_frequency (rad/s),
    damping_ratio (None for a zero eigenvalue) and unstable; the JSON's "modes" has one per
    eigenvalue, .eigenvalues every eigenvalue). Every number is free of
    rounding noise as the command line prints it: an entry of A (B) below noise_threshold (1e-12)
    times the largest |A_ij| (|B_ij|), and a real or imaginary part below noise_threshold |s|,
    is exactly 0. Also the operating point q, qd (n,) (completed: the dependent coordinates and
    speeds were solved from the constraints), independent_coordinates, dependent_coordinates,
    independent_speeds, dependent_speeds (names), and text (what `appell linearize --modes`
    prints). With symbolic=True, A_symbolic and B_symbolic (lists of rows of expression text in
    the parameters), or symbolic_absent (why they could not be formed; the numeric A and B hold).
    """

    _fields = ("states", "A", "B")


class CheckResult(_Result):
    """What `appell check --json` prints: claims, a list of dicts (name, verdict: "holds",
    "holds-up-to-factor" or "differs", factor (text or None), difference (a list of term texts,
    [] when it holds), witness (None, or {"state": {symbol: number}, "claimed", "appell"})).
    holds: no claim differs (the command line's exit status 0); text: what `appell check`
    prints."""

    _fields = ("holds", "claims")


class ReportResult(_Result):
    """What appell.report made: path (the HTML file written, or None), html (the page when no
    path was given, else None), complete, and incomplete (a list of "PART: REASON" for every part
    that failed; the page is written all the same and says so at its top)."""

    _fields = ("path", "complete")


class RegressorResult(_Result):
    """What `appell regressor --q --qd --qdd [--base] --json` prints, as attributes: Y (n, N) the
    inertial-parameter regressor at the state, Y @ values = tau + Q_loads (gravity in Y, the
    loads not); parameters (N names: Y's columns, ten standard parameters per body, then
    particle, about its frame's origin: m_B, mx_B, ..., Izz_B); values (N,) their numbers at the
    model's values; coordinates (Y's rows); t; text (what the command line prints). Rounding noise
    is exactly 0 (as every number the command line prints).

    With base=True also the base parameters: kept (the standard parameters whose columns are Y_b's),
    base_parameters (their names, kept name + "R"), base_values (beta,), Y_b (n, len(kept)) with
    Y_b @ base_values = Y @ values, base_expressions (beta in the standard parameters, model-file
    text), exact, roles (per standard parameter: "kept", "grouped" or "vanishes"), grouped_into,
    samples, tolerance; without it these are None."""

    _fields = ("parameters", "Y")


class ModesResult(_Result):
    """frequencies_hz (modes,), shapes (dofs, modes), and the mesh: body, elements,
    element_type, nodes, dofs, free_dofs, mass; the frame's omega at at_time; stiffened, note."""

    _fields = ("body", "frequencies_hz")


# ---------------------------------------------------------------------------------------------
# Solvers: the commands simulate, inverse, statics and fem with their options as arguments


def _simulation_options(t_end, output_step, rtol, atol, integrator, max_rows, inputs):
    """simulate's options checked (as report's): (t_end, output_step, rtol, atol) as floats."""
    t_end = _number("t_end", t_end)
    output_step = 0.01 if output_step is None else _number("output_step", output_step)
    rtol = _number("rtol", rtol)
    atol = _number("atol", atol)
    _check_type("integrator", integrator, (str,), "'bdf' or 'adams'")
    if isinstance(max_rows, bool) or not isinstance(max_rows, int):
        raise TypeError(f"max_rows: expected an int, got {type(max_rows).__name__}")
    if inputs is not None:
        _check_type("inputs", inputs, (dict,), "a dict of name -> expression of t (str)")
        for name, expression in inputs.items():
            _check_type(f"inputs[{name!r}]", expression, (str,), "an expression of t (str)")
    return t_end, output_step, rtol, atol


def simulate(model, t_end, q0=None, qd0=None, rtol=1e-8, atol=1e-8, output_step=None,
             values=None, inputs=None, *, integrator="bdf", max_rows=10_000_000,
             method=None, jit=True, u0=None):
    """Forward dynamics from t = 0 to t_end with SUNDIALS CVODE (`appell simulate`).

    model: a Model or Equations (not the minimal form). A Model without `method` is integrated
    as `appell simulate` does: without forming its equations where the recursions cover it
    (constraints and generalized speeds included; set-up in milliseconds even for a long chain),
    in its Gibbs-Appell equations otherwise (a carrier frame, flexible bodies). method
    ("lagrange", "gibbs-appell", ...): that principle's equations, formed, are integrated.
    q0, qd0: initial state (n values each; default the model's). rtol, atol: tolerances.
    output_step: time between rows (default 0.01; the last row is at t_end).
    values: {name: number or expression of t (str)} for parameters, inputs and unspecified
    prescribed functions; inputs: {name: expression of t} (as --input NAME=EXPR).
    integrator: "bdf" (default) or "adams". jit: evaluate by the generated code compiled with
    the system's C compiler into a cached shared object (jit=False: the recursions interpreted,
    or the tape of formed equations, which formed equations with constraints always use).
    stats["evaluator"] says what evaluated ("jit", "recursions" or "tape") and stats["method"]
    what it evaluated ("recursions": no equations formed, or the principle of the formed
    equations). A model with generalized speeds is integrated in them (M~ u' = f~, q' = W u; a
    quaternion kept at unit length): u0 gives the initial speeds (one per speed, as `appell
    simulate --u0`), else they follow from qd0 or the model's velocities. Returns a
    SimulationResult.
    """
    _model(model, allow_equations=True)
    t_end, output_step, rtol, atol = _simulation_options(t_end, output_step, rtol, atol,
                                                         integrator, max_rows, inputs)
    method = _method(method, allow_none=True)
    data = _appell._simulate(model, t_end, q0, qd0, rtol, atol, output_step, values, inputs,
                             integrator, max_rows, method, bool(jit), u0)
    return SimulationResult(data)


def inverse(model, trajectory=None, *, t_end=None, output_step=None, from_csv=None, t=None,
            q=None, qd=None, qdd=None, values=None, method=None, jit=True):
    """Driving forces Q = M q'' - f along a prescribed motion (`appell inverse`).

    The motion is one of: trajectory="q1 = EXPR; q2 = EXPR" (expressions of t and the
    parameters) with t_end and output_step (rows at t = 0, H, ..., <= t_end); from_csv=PATH
    (header t,<q..>,dot(<q>)..,ddot(<q>)..); or arrays t (N,), q, qd, qdd (N, n).
    values: parameter overrides. A Model without `method` is evaluated as `appell inverse`
    does: by Newton-Euler straight from the model where the recursions cover it (no equations
    formed; compiled generated code, or interpreted with jit=False), else from its Gibbs-Appell
    equations; method ("lagrange", "gibbs-appell", ...): from that principle's equations, formed.
    The result's .method says which ("recursions" or the principle).
    Returns an InverseResult (t, q, qd, qdd, Q).
    """
    _model(model, allow_equations=True)
    method = _method(method, allow_none=True)
    if trajectory is not None:
        _check_type("trajectory", trajectory, (str,), "'q1 = EXPR; q2 = EXPR' (str)")
    t_end = _number("t_end", t_end, allow_none=True)
    output_step = _number("output_step", output_step, allow_none=True)
    if q is not None and (t is None or qd is None or qdd is None):
        missing = [name for name, v in (("t", t), ("qd", qd), ("qdd", qdd)) if v is None]
        raise ValueError(f"{missing[0]}: required with q (give t, q, qd and qdd)")
    data = _appell._inverse(model, trajectory, t_end, output_step, from_csv, t, q, qd, qdd,
                            values, method, bool(jit))
    return InverseResult(data)


def statics(model, *, guesses=None, values=None, t=0.0, random_starts=8, tolerance=1e-10,
            stability_tolerance=1e-9, modes=False):
    """Generalized forces at rest by virtual work, equilibria and their stability
    (`appell statics`); every field of `appell statics --json`.

    guesses: extra Newton starts, a list of n-vectors, or a dict {coordinate: value} for one
    start (the others at their initial values), as --guess. t: time of rheonomic loads (a moving
    model's relative equilibria must not depend on it). stability_tolerance: a stiffness
    eigenvalue within this fraction of max |K_ij| counts as zero (neutral). modes: also the
    small oscillations about each equilibrium (--modes; a growing mode makes it unstable).
    Returns an EquilibriaResult; raises ComputationError when no start converges.
    """
    import json

    import numpy

    _model(model)
    t = _number("t", t)
    tolerance = _number("tolerance", tolerance, positive=True)
    stability_tolerance = _number("stability_tolerance", stability_tolerance)
    _check_type("modes", modes, (bool,), "True or False")
    if isinstance(random_starts, bool) or not isinstance(random_starts, int):
        raise TypeError(f"random_starts: expected an int, got {type(random_starts).__name__}")
    raw = _appell._statics(model, guesses, values, t, random_starts, tolerance,
                           stability_tolerance, modes)
    data = json.loads(raw["json"])
    n = len(raw["coordinates"])
    for e, lam, residual in zip(data["equilibria"], raw["lam"], raw["residual"]):
        e["q"] = numpy.array(e["q"], dtype=float)
        e.pop("lambda", None)
        e["lam"] = lam
        e["residual"] = residual
        e["stiffness_eigenvalues"] = numpy.array(e["stiffness_eigenvalues"], dtype=float)
        e["neutral_directions"] = numpy.array(e["neutral_directions"], dtype=float).reshape(-1, n)
        for mode in e.get("modes", ()):
            mode["eigenvalue"] = complex(*mode["eigenvalue"])
    data.setdefault("inertial_forces", None)
    data.setdefault("relative", None)
    data["best_residual"] = raw["best_residual"]
    data["coordinates"] = raw["coordinates"]
    return EquilibriaResult(data)


def linearize(model, q=None, qd=None, *, t=0.0, inputs=None, values=None, method=None,
              symbolic=False):
    """The state-space model dx/dt = A x + B u about an operating point (`appell linearize`).

    model: a Model or Equations. A Model without `method` is linearized from its recursions where
    they cover it (no equations formed, unless symbolic=True), as `appell linearize` does;
    method ("lagrange", "gibbs-appell", ...): from that principle's equations, formed. q, qd: the
    operating point
    (n values each; default the model's initial values), t its time. inputs: the inputs u, a list
    of the model's input names (default every input, in order). values: {name: number} for
    parameters, the inputs' operating values and unspecified prescribed functions (--set).
    symbolic: also A and B as expressions of the parameters (--symbolic). With constraints the
    states are the independent coordinates and speeds (LinearizationResult). Raises
    ComputationError when M is singular at the point or the constraints cannot be satisfied.
    Returns a LinearizationResult.
    """
    import json

    import numpy

    _model(model, allow_equations=True)
    method = _method(method, allow_none=True)
    t = _number("t", t)
    _check_type("symbolic", symbolic, (bool,), "True or False")
    raw = _appell._linearize(model, q, qd, t, inputs, values, method, symbolic)
    data = json.loads(raw.pop("json"))
    states, columns = len(data["states"]), len(data["inputs"])
    data["A"] = numpy.array(data["A"], dtype=float).reshape(states, states)
    data["B"] = numpy.array(data["B"], dtype=float).reshape(states, columns)
    data["eigenvalues"] = numpy.array([complex(*s) for s in data["eigenvalues"]], dtype=complex)
    for entry in data["eigenvalue_groups"] + data["modes"]:
        entry["eigenvalue"] = complex(*entry["eigenvalue"])
    # One mode per eigenvalue group, as the command line lists them: a conjugate pair once (its
    # member with Im >= 0), a repeated value once with its count. The eigenvalues one by one stay
    # in .eigenvalues.
    data["modes"] = [dict(group, **{k: data["modes"][first][k]
                                    for k in ("natural_frequency", "damping_ratio", "unstable")})
                     for group, first in zip(data["eigenvalue_groups"], raw.pop("group_first"))]
    data.update(raw)
    return LinearizationResult(data)


def check(model, claims):
    """Judges the equations a paper printed (a claims file, docs/user-guide.md "appell check")
    against the model's own (`appell check MODEL CLAIMS`). claims: the claims file's path.
    Returns a CheckResult (a claim that differs is a verdict, not an exception); a claims file
    that is not valid is a ModelError at its file, line and column."""
    import json

    _model(model)
    data, text = _appell._check(model, _path("claims", claims))
    claims = json.loads(data)["claims"]
    return CheckResult({"claims": claims, "text": text,
                        "holds": all(c["verdict"] != "differs" for c in claims)})


def report(model, out=None, *, method="gibbs-appell", verify="auto", simulate=True, t_end=5.0,
           q0=None, qd0=None, u0=None, rtol=1e-8, atol=1e-8, output_step=None, values=None,
           inputs=None, integrator="bdf", max_rows=10_000_000):
    """One self-contained HTML page of the model (`appell report`): its equations typeset, the
    verify table, plots and a 3-D animation of a simulation.

    out: the HTML file to write (not the model's own file); None returns the page in the
    result's .html. verify: "auto" (symbolic and numeric; numeric alone for equations of more
    than 500 nodes), "full", "numeric" or "none". simulate=False draws the model in its initial
    state (--no-simulation). The simulation's arguments are simulate()'s (t_end default 5 s).
    A part that fails does not stop the others: the result's .incomplete says why (the command
    line exits 1 then). Returns a ReportResult.
    """
    import os

    _model(model)
    _method(method)
    _check_type("verify", verify, (str,), "'auto', 'full', 'numeric' or 'none'")
    _check_type("simulate", simulate, (bool,), "True or False")
    t_end, output_step, rtol, atol = _simulation_options(t_end, output_step, rtol, atol,
                                                         integrator, max_rows, inputs)
    path = None if out is None else _path("out", out)
    # As the command line: the page must not replace the model it is made of.
    if path is not None and model.source and os.path.exists(path) and \
            os.path.exists(model.source) and os.path.samefile(path, model.source):
        raise ValueError(f"out: {path} is the model file; the report would replace it")
    data = _appell._report(model, path or "", method, verify, simulate, t_end, q0, qd0, u0, rtol,
                           atol, output_step, integrator, values, inputs, max_rows)
    data["path"] = path
    data["complete"] = not data["incomplete"]
    return ReportResult(data)


def fem_modes(model, *, body=None, modes=6, at_time=0.0, stiffening=True, values=None):
    """Natural frequencies and mode shapes of a flexible body about its frame's rigid state at
    at_time (`appell fem`). body: its name (default the first); stiffening=False as
    --no-stiffening. Returns a ModesResult."""
    _model(model)
    if body is not None:
        _check_type("body", body, (str,), "a flexible body's name (str)")
    if isinstance(modes, bool) or not isinstance(modes, int):
        raise TypeError(f"modes: expected an int, got {type(modes).__name__}")
    at_time = _number("at_time", at_time)
    _check_type("stiffening", stiffening, (bool,), "True or False")
    return ModesResult(_appell._fem_modes(model, body, modes, at_time, stiffening, values))


def regressor(model, q, qd, qdd, *, t=0.0, values=None, base=False):
    """The inertial-parameter regressor at one state as numbers (`appell regressor --q --qd --qdd
    [--base]`): a RegressorResult, Y (n, 10 per body, then particle) with its parameters' names and
    values, and with base=True the base parameters and Y_b. Evaluated from the regressor's tape
    (no symbolic regressor is formed: milliseconds for a robot). A model the regressor does not
    cover (constraints, a carrier frame, generalized speeds) raises ModelError."""
    _model(model, allow_equations=True)
    t = _number("t", t)
    _check_type("base", base, (bool,), "True or False")
    data = _appell._regressor(model, q, qd, qdd, t, values, base)
    for key in ("kept", "base_parameters", "base_expressions", "base_values", "Y_b", "exact",
                "roles", "grouped_into", "samples", "tolerance"):
        data.setdefault(key, None)
    return RegressorResult(data)


def base_parameters(model, values=None):
    """The base parameters of a model (`appell regressor --base`), as a dict:

    standard      the standard parameters' names (the columns of regressor(...).Y, in order)
    roles         per standard parameter: "kept", "grouped" or "vanishes"
    grouped_into  per standard parameter: the kept ones it adds to (grouped ones only)
    base          {kept parameter's name: its base parameter as a SymPy expression in the
                  standard parameters' Symbols and the model's parameters}
    kept          the kept names in order: regressor(...).Y[:, columns of these] is Y_b
    values        {kept name: the base parameter's number at the model's values}
    exact         {kept name: False when its coefficients are numbers at these values}
    """
    import sympy

    from ._sympy import namespace

    raw = _appell._base_parameters(model, values)
    names = namespace(model)
    for name in raw["standard"]:
        names[name] = sympy.Symbol(name)
    return {
        "standard": list(raw["standard"]),
        "roles": list(raw["roles"]),
        "grouped_into": [list(g) for g in raw["grouped_into"]],
        "base": {k: sympy.sympify(e, locals=names, rational=True)
                 for k, e in zip(raw["kept"], raw["expressions"])},
        "kept": list(raw["kept"]),
        "values": dict(zip(raw["kept"], raw["values"])),
        "exact": dict(zip(raw["kept"], raw["exact"])),
    }
