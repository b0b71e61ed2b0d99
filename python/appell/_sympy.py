"""Equations as SymPy matrices, in SymPy mechanics' conventions (Equations.to_sympy).

The library prints every entry in the model language (io::expression_text, which it parses back
itself); each entry is parsed here by sympy.sympify with a namespace that maps the model's names to
SymPy objects: coordinates, inputs and unspecified prescribed functions to dynamicsymbols
(functions of t), dot(x), ddot(x), ... to their time derivatives, parameters to Symbols.

Equations written through named intermediates (what text() prints for a large model) are parsed
as written: each name's definition once, in order, and the entries in terms of the names. That is
what keeps a 6-joint arm small and quick: the UR5's f[0] is "-N_2z" beside 134 short definitions
(0.7 s), where the same entry as one tree has 2.2 million characters (10 to 30 s to print and
parse).
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


class SympyEquations(tuple):
    """(M, f), or (M, f, A, b) with constraints, as sympy.Matrix; a tuple, so that
    `M, f = eq.to_sympy()` unpacks it.

    intermediates: the named intermediates the entries are written in, a list of
    (sympy.Symbol, definition) in order of definition, each definition in terms of the names
    before it and of the model's symbols (the shape of sympy.cse's replacements); [] when the
    equations are written without names.
    """

    def __new__(cls, matrices, intermediates=()):
        result = super().__new__(cls, matrices)
        result.intermediates = list(intermediates)
        return result

    def substituted(self):
        """The matrices with every name put back: entries in the model's symbols alone (what
        flat=True gives), as a plain tuple. Large: each name is substituted into its uses."""
        values = {}
        for name, definition in self.intermediates:
            values[name] = definition.xreplace(values)
        return tuple(matrix.xreplace(values) for matrix in self)


def _parse(text, names):
    # Decimals are printed only for exact rationals (denominators 2^a 5^b): read back exactly.
    return sympy.sympify(text, locals=names, rational=True)


def equations_to_sympy(equations, constraints=False, flat=False):
    texts = equations._expressions()
    names = namespace(equations.model)
    intermediates = []
    # The names are the library's, chosen apart from the model's own (a parameter c3 makes the
    # cosine c3_), so they never hide a name of the model.
    for name, _ in texts["intermediates"]:
        names[name] = sympy.Symbol(name)
    for name, text in texts["intermediates"]:
        intermediates.append((names[name], _parse(text, names)))
    M = sympy.Matrix([[_parse(e, names) for e in row] for row in texts["M"]])
    f = sympy.Matrix([_parse(e, names) for e in texts["f"]])
    matrices = (M, f)
    if constraints:
        n = len(texts["M"])
        A = sympy.Matrix(len(texts["A"]), n, [_parse(e, names) for row in texts["A"] for e in row])
        b = sympy.Matrix(len(texts["b"]), 1, [_parse(e, names) for e in texts["b"]])
        matrices = (M, f, A, b)
    result = SympyEquations(matrices, intermediates)
    # The flat form from the parsed names (SymPy shares what is substituted): a fraction of a
    # second for the 6-joint arm, where parsing the library's flat text took about 10 s.
    return SympyEquations(result.substituted()) if flat and intermediates else result


def split_to_sympy(equations):
    texts = equations._split_expressions()
    names = namespace(equations.model)
    return {
        key: sympy.Matrix([[_parse(e, names) for e in row] for row in value])
        for key, value in texts.items()
        if key not in ("moving", "proved")
    }
