"""Equations as SymPy matrices, in SymPy mechanics' conventions (Equations.to_sympy).

The library prints every entry in the model language (io::expression_text, which it parses back
itself); each entry is parsed here by sympy.sympify with a namespace that maps the model's names to
SymPy objects: coordinates, inputs and unspecified prescribed functions to dynamicsymbols
(functions of t), dot(x), ddot(x), ... to their time derivatives, parameters to Symbols.
"""

import sympy
from sympy.physics.mechanics import dynamicsymbols

_FUNCTIONS = {
    "sin": sympy.sin, "cos": sympy.cos, "tan": sympy.tan, "asin": sympy.asin,
    "acos": sympy.acos, "atan": sympy.atan, "atan2": sympy.atan2, "sinh": sympy.sinh,
    "cosh": sympy.cosh, "tanh": sympy.tanh, "exp": sympy.exp, "log": sympy.log,
    "sqrt": sympy.sqrt, "abs": sympy.Abs,
}
# The spellings of the k-th time derivative (sym::TimeFunctions::text_name): dot, ddot, dddot,
# then d4, d5, ...
_DERIVATIVES = {"dot": 1, "ddot": 2, "dddot": 3, **{f"d{k}": k for k in range(4, 25)}}


def namespace(model):
    """The names of `model`'s expressions as SymPy objects (a dict for sympify's locals)."""
    t = dynamicsymbols._t
    names = {"t": t, "pi": sympy.pi, **_FUNCTIONS}
    for name in model.parameters:
        names[name] = sympy.Symbol(name)
    for name in list(model.coordinates) + list(model.inputs) + list(model.prescribed):
        names[name] = dynamicsymbols(name)
    for spelling, order in _DERIVATIVES.items():
        names[spelling] = (lambda k: lambda f: sympy.diff(f, t, k))(order)
    return names


def _parse(text, names):
    return sympy.sympify(text, locals=names)


def equations_to_sympy(equations, constraints=False):
    texts = equations._expressions()
    names = namespace(equations.model)
    M = sympy.Matrix([[_parse(e, names) for e in row] for row in texts["M"]])
    f = sympy.Matrix([_parse(e, names) for e in texts["f"]])
    if not constraints:
        return M, f
    n = len(texts["M"])
    A = sympy.Matrix(len(texts["A"]), n, [_parse(e, names) for row in texts["A"] for e in row])
    b = sympy.Matrix(len(texts["b"]), 1, [_parse(e, names) for e in texts["b"]])
    return M, f, A, b


def split_to_sympy(equations):
    texts = equations._split_expressions()
    names = namespace(equations.model)
    return {
        key: sympy.Matrix([[_parse(e, names) for e in row] for row in value])
        for key, value in texts.items()
        if key not in ("moving", "proved")
    }
