"""The table of the array stdlib's operations: one row per operation, from
which the rest is derived - cujit._stdlib's names and __all__, the names
`cujit.<name>` loads lazily (cujit/__init__.py), the NumPy ufuncs that
DeviceArray.__array_ufunc__ runs as cujit's functions, and the callables
registered for DeviceArray's operators and methods (_set_array_ops).

Plain data without NumPy, so that `import cujit` can read the names and
still load neither NumPy nor the stdlib (cujit/_stdlib/, loaded on first use).

Columns:
  name      the function in cujit._stdlib.<family>; public (in __all__ and
            cujit.<name>) unless it starts with "_"
  family    its module in cujit/_stdlib/
  aliases   more public names for the same function
  ufunc     the NumPy ufunc it implements (numpy.<ufunc>; an elementwise
            operation, called as f(*inputs, out=...))
  operator  DeviceArray's operator slot it serves with f.operator (binary
            or unary: NotImplemented for operands it does not take)
  inplace   DeviceArray's in-place operator slot it serves with f.inplace
  method    DeviceArray's method slot it serves with f itself
The slot names are runtime/array.c's ARRAY_OPS: a new operator or method
needs its slot there too."""


class Op:
    """One stdlib operation (a row of OPERATIONS)."""
    __slots__ = ("name", "family", "aliases", "ufunc", "operator", "inplace", "method")

    def __init__(self, name, family, aliases=(), ufunc=None, operator=None, inplace=None,
                 method=None):
        self.name = name
        self.family = family
        self.aliases = aliases
        self.ufunc = ufunc
        self.operator = operator
        self.inplace = inplace
        self.method = method

    def __repr__(self):
        return "<stdlib operation %s.%s>" % (self.family, self.name)


def _ew(name, operator=None, inplace=None, aliases=()):
    """An elementwise operation: the NumPy ufunc of its name (less a leading "_")."""
    return Op(name, "elementwise", aliases, name.lstrip("_"), operator, inplace)


OPERATIONS = (
    # arithmetic and bitwise operators, with their in-place forms
    _ew("add", operator="add", inplace="iadd"),
    _ew("subtract", operator="sub", inplace="isub"),
    _ew("multiply", operator="mul", inplace="imul"),
    _ew("true_divide", operator="truediv", inplace="itruediv", aliases=("divide",)),
    _ew("floor_divide", operator="floordiv", inplace="ifloordiv"),
    _ew("remainder", operator="mod", inplace="imod", aliases=("mod",)),
    _ew("_divmod", operator="divmod"),
    _ew("power", operator="pow", inplace="ipow"),
    _ew("bitwise_and", operator="and", inplace="iand"),
    _ew("bitwise_or", operator="or", inplace="ior"),
    _ew("bitwise_xor", operator="xor", inplace="ixor"),
    _ew("left_shift", operator="lshift", inplace="ilshift"),
    _ew("right_shift", operator="rshift", inplace="irshift"),
    # comparisons
    _ew("less", operator="lt"),
    _ew("less_equal", operator="le"),
    _ew("equal", operator="eq"),
    _ew("not_equal", operator="ne"),
    _ew("greater", operator="gt"),
    _ew("greater_equal", operator="ge"),
    # unary operators
    _ew("negative", operator="neg"),
    _ew("positive", operator="pos"),
    _ew("invert", operator="invert"),
    _ew("absolute", operator="abs", aliases=("abs",)),
    # math, logic and elementwise functions
    _ew("isnan"),
    _ew("sqrt"),
    _ew("exp"),
    _ew("log"),
    _ew("sin"),
    _ew("cos"),
    _ew("tan"),
    _ew("tanh"),
    _ew("arctan2"),
    _ew("floor"),
    _ew("ceil"),
    _ew("minimum"),
    _ew("maximum"),
    _ew("logical_and"),
    _ew("logical_or"),
    _ew("logical_xor"),
    _ew("logical_not"),
    Op("where", "elementwise"),
    Op("clip", "elementwise"),
    # reductions and scans, also DeviceArray's methods
    Op("sum", "reductions", method="sum"),
    Op("prod", "reductions", method="prod"),
    Op("min", "reductions", ("amin",), method="min"),
    Op("max", "reductions", ("amax",), method="max"),
    Op("mean", "reductions", method="mean"),
    Op("argmin", "reductions", method="argmin"),
    Op("argmax", "reductions", method="argmax"),
    Op("any", "reductions", method="any"),
    Op("all", "reductions", method="all"),
    Op("cumsum", "scans", method="cumsum"),
    # creation
    Op("arange", "creation"),
    Op("linspace", "creation"),
    # conversions, copies and writes
    Op("astype", "copies", method="astype"),
    Op("copy", "copies"),
    Op("_fill", "copies", method="fill"),
    Op("_assign", "copies", method="assign"),
    # shapes and views
    Op("reshape", "shape", method="reshape"),
    Op("ravel", "shape", method="ravel"),
    Op("_flatten", "shape", method="flatten"),
    Op("transpose", "shape", method="transpose"),
    Op("squeeze", "shape", method="squeeze"),
    Op("ascontiguousarray", "shape"),
    Op("_real", "shape", method="real"),
    Op("_imag", "shape", method="imag"),
    # NumPy's protocols
    Op("_array_ufunc", "protocols", method="array_ufunc"),
    Op("_array_function", "protocols", method="array_function"),
)

# the public names: cujit._stdlib.__all__, and what cujit.<name> loads lazily
NAMES = tuple(n for op in OPERATIONS for n in (op.name,) + op.aliases if not n.startswith("_"))
