#!/usr/bin/env python3
"""Generates python_cases.txt: expressions with the value CPython gives them, for expr_test.

Each line is `<expression>\\t<expected repr>` or `<expression>\\t!error` where Python raises.
Lines `env <name>\\t<repr>` bind the variables every case may read. Regenerate with

    python3 tuner/expr/testdata/make_cases.py > tuner/expr/testdata/python_cases.txt

The expressions are random (fixed seed) plus the hand-picked edge cases of hand_cases.txt.
CPython evaluates each one with three deliberate differences of tune's language mirrored in the
evaluation, so the expected values are what tune must produce:
  * ints are int64: any intermediate int outside [-2**63, 2**63) is an error ("integer overflow");
  * `str % x` is a TypeError (no printf-style formatting);
  * a negative number to a fractional power is an error (no complex numbers).
Unknown names and wrong argument counts are compile-time errors in tune (Python raises them only
when the call is reached), so the random expressions contain neither.
Cases whose outcome depends on CPython object identity (NaN in containers, sorting NaNs) or that
would build huge values are skipped.
"""
import ast
import math
import operator
import os
import random
import sys
import warnings

warnings.simplefilter("ignore")

ENV = {
    "a": 7, "b": -3, "c": 0, "t": True, "f": 2.5, "g": -0.5, "s": "abc", "e": "",
    "L": [1, 2, 3], "T": (4, 5), "E": [], "N": None, "M": [[1, 2], [3]],
}
INT64 = (-2**63, 2**63)


class Skip(Exception):
    pass


def chk(v):
    if type(v) is int and not INT64[0] <= v < INT64[1]:
        raise OverflowError("integer overflow")
    if type(v) is float and math.isnan(v):
        raise Skip()
    if isinstance(v, (list, tuple)):
        for x in v:
            chk(x)
    return v


BINOPS = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitAnd": operator.and_,
    "BitOr": operator.or_, "BitXor": operator.xor,
}
UNOPS = {"USub": operator.neg, "UAdd": operator.pos, "Invert": operator.invert, "Not": operator.not_}


def is_int(v):
    return isinstance(v, int)


def size_of(v):
    return len(v) if isinstance(v, (str, list, tuple)) else None


def binop(op, l, r):
    if op == "Mod" and isinstance(l, str):
        raise TypeError("no str formatting")
    if op == "Pow" and is_int(l) and is_int(r) and r > 64 and abs(l) > 1:
        raise OverflowError("integer overflow")
    if op == "LShift" and is_int(l) and is_int(r) and r > 64 and l != 0:
        raise OverflowError("integer overflow")
    if op == "Mult":
        for seq, n in ((l, r), (r, l)):
            if size_of(seq) is not None and is_int(n) and size_of(seq) * max(n, 0) > 10**5:
                raise Skip()
    v = BINOPS[op](l, r)
    if isinstance(v, complex):
        raise ValueError("complex result")
    return chk(v)


def unop(op, v):
    return chk(UNOPS[op](v))


def my_sum(it, start=0):
    if isinstance(start, str):
        raise TypeError("sum of strings")
    acc = start
    for x in it:
        acc = binop("Add", acc, x)
    return acc


def my_sorted(it):
    items = list(it)
    if any(type(x) is float and math.isnan(x) for x in items):
        raise Skip()
    return sorted(items)


def my_pow(a, b):
    return binop("Pow", a, b)


class Checked(ast.NodeTransformer):
    """Routes every operation through the int64-checking helpers above."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        return ast.Call(ast.Name("_bin", ast.Load()), [ast.Constant(type(node.op).__name__), node.left, node.right], [])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        return ast.Call(ast.Name("_un", ast.Load()), [ast.Constant(type(node.op).__name__), node.operand], [])

    def visit_Constant(self, node):
        if type(node.value) is int and not INT64[0] <= node.value < INT64[1]:
            return ast.Call(ast.Name("_chk", ast.Load()), [node], [])
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id in ("sum", "sorted", "pow"):
            node.func = ast.Name("_" + node.func.id, ast.Load())
        return ast.Call(ast.Name("_chk", ast.Load()), [node], [])


SAFE_BUILTINS = {name: getattr(__builtins__, name) for name in (
    "range", "list", "tuple", "len", "min", "max", "abs", "int", "float", "round", "str", "bool",
    "sum", "sorted", "any", "all", "pow", "divmod")}


def expected(src):
    try:
        tree = ast.fix_missing_locations(Checked().visit(ast.parse(src, mode="eval")))
        code = compile(tree, "<case>", "eval")
    except SyntaxError:
        return "!error"
    scope = dict(ENV)
    scope.update(__builtins__=SAFE_BUILTINS, _bin=binop, _un=unop, _chk=chk, _sum=my_sum,
                 _sorted=my_sorted, _pow=my_pow)
    try:
        v = eval(code, scope)
    except Skip:
        return None
    except (ArithmeticError, TypeError, ValueError, IndexError, NameError, AttributeError, KeyError):
        return "!error"
    if "nan" in repr(v):
        return None
    return repr(v)


# ---- random expressions -------------------------------------------------------------------------

R = random.Random(20240611)
INT_LEAVES = ["0", "1", "2", "3", "5", "7", "10", "12", "-1", "-4", "32", "255", "1024", "0x1f", "0b101", "0o17",
              "1_000", "2147483647", "4611686018427387904", "9223372036854775807"]
FLOAT_LEAVES = ["0.5", "2.25", "1.5", "3.0", "0.1", "1e300", "1e-300", "1e16", "123456.789", "0.0", "1.", ".25",
                "2.5e-3", "7e22", "1_0.5"]
STR_LEAVES = ["'abc'", "''", "'a'", '"it\'s"', "'x\\ny'", "'a\\tb'", "'12'", "' -7 '", "'1_0'", "'0x1'", "'1.5'",
              "'inf'", "'-1e3'", "'hello world'", "'\\x41'", "r'\\d'", "'ab' 'cd'", "'''q'''"]
NUM_NAMES = ["a", "b", "c", "t", "f", "g"]
SEQ_NAMES = ["s", "e", "L", "T", "E", "M"]
BIN = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"]
CMP = ["<", "<=", ">", ">=", "==", "!=", "in", "not in"]


def sp():
    return R.choice(["", " ", " "])


def paren(x, p=0.5):
    return f"({x})" if R.random() < p else x


def leaf_num(loop_vars):
    r = R.random()
    if loop_vars and r < 0.3:
        return R.choice(loop_vars)
    if r < 0.55:
        return R.choice(INT_LEAVES[:12])
    if r < 0.62:
        return R.choice(INT_LEAVES[12:])
    if r < 0.78:
        return R.choice(FLOAT_LEAVES)
    if r < 0.84:
        return R.choice(["True", "False"])
    return R.choice(NUM_NAMES)


def small_int():
    return str(R.randint(-4, 9))


def num(d, lv=()):
    if d <= 0 or R.random() < 0.25:
        return leaf_num(list(lv))
    r = R.random()
    if r < 0.45:
        op = R.choice(BIN)
        right = small_int() if op in ("**", "<<", ">>") and R.random() < 0.7 else paren(num(d - 1, lv))
        return f"{paren(num(d - 1, lv))}{sp()}{op}{sp()}{right}"
    if r < 0.55:
        return R.choice(["-", "+", "~", "- ", "not "]) + paren(num(d - 1, lv), 0.7)
    if r < 0.7:
        fn = R.choice(["abs", "int", "float", "round", "bool", "pow", "divmod", "round2", "min", "max", "len", "sum"])
        if fn == "round2":
            return f"round({num(d - 1, lv)}, {small_int()})"
        if fn in ("pow", "divmod") or (fn in ("min", "max") and R.random() < 0.6):
            return f"{fn}({num(d - 1, lv)}, {num(d - 1, lv)})"
        if fn in ("min", "max", "len", "sum"):
            return f"{fn}({seq(d - 1, lv)})"
        if fn == "int" and R.random() < 0.3:
            return f"int({R.choice(STR_LEAVES)})"
        if fn == "float" and R.random() < 0.3:
            return f"float({R.choice(STR_LEAVES)})"
        return f"{fn}({num(d - 1, lv)})"
    if r < 0.8:
        return f"{paren(num(d - 1, lv), 0.3)} if {paren(boolean(d - 1, lv), 0.3)} else {paren(num(d - 1, lv), 0.3)}"
    if r < 0.9:
        return f"{paren(seq(d - 1, lv), 0.8)}[{num(d - 1, lv) if R.random() < 0.3 else small_int()}]"
    return paren(boolean(d - 1, lv), 0.9)


def boolean(d, lv=()):
    r = R.random()
    if d <= 0 or r < 0.35:
        ops = [R.choice(CMP[:6]) for _ in range(R.choice([1, 1, 1, 2, 3]))]
        parts = [paren(num(d - 1, lv), 0.4) for _ in range(len(ops) + 1)]
        return parts[0] + "".join(f"{sp()}{o}{sp()}{p}" for o, p in zip(ops, parts[1:]))
    if r < 0.5:
        return f"{paren(anything(d - 1, lv))} {R.choice(['in', 'not in'])} {paren(seq(d - 1, lv))}"
    if r < 0.75:
        return f"{paren(anything(d - 1, lv))} {R.choice(['and', 'or'])} {paren(anything(d - 1, lv))}"
    if r < 0.85:
        return f"not {paren(anything(d - 1, lv))}"
    if r < 0.9:
        return f"{paren(anything(d - 1, lv))} is {R.choice(['None', 'not None', 'True', 'False'])}"
    return f"{R.choice(['any', 'all'])}({seq(d - 1, lv)})"


def seq(d, lv=()):
    r = R.random()
    if d <= 0 or r < 0.2:
        return R.choice(SEQ_NAMES + STR_LEAVES[:6] + ["[]", "()", "[1, 2]", "(3,)", "[1.5, -2]"])
    if r < 0.35:
        items = [anything(d - 1, lv) if R.random() < 0.3 else num(d - 1, lv) for _ in range(R.randint(0, 4))]
        if R.random() < 0.5:
            return "[" + ", ".join(items) + R.choice(["", ","]) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if r < 0.5:
        var = R.choice(["x", "y", "i", "a"])
        inner = lv + (var,)
        body = num(d - 1, inner)
        src = R.choice([seq(d - 1, lv), f"range({small_int()})", f"range({small_int()}, {R.randint(-3, 12)})",
                        f"range({small_int()}, {R.randint(-10, 20)}, {R.choice(['1', '2', '3', '-1', '-2', '5'])})"])
        cond = f" if {boolean(d - 1, inner)}" if R.random() < 0.3 else ""
        more = ""
        if R.random() < 0.2:
            var2 = R.choice(["z", "j"])
            more = f" for {var2} in {seq(d - 2, inner)}"
            body = num(d - 1, inner + (var2,))
        return f"[{body} for {var} in {src}{cond}{more}]"
    if r < 0.6:
        return f"{paren(seq(d - 1, lv))}{sp()}+{sp()}{paren(seq(d - 1, lv))}"
    if r < 0.67:
        return f"{paren(seq(d - 1, lv))}{sp()}*{sp()}{R.choice(['0', '1', '2', '3', '-1', 'True'])}"
    if r < 0.8:
        parts = [R.choice(["", small_int()]) for _ in range(R.choice([2, 3]))]
        return f"{paren(seq(d - 1, lv), 0.8)}[{':'.join(parts)}]"
    if r < 0.9:
        fn = R.choice(["list", "tuple", "sorted", "str"])
        if fn == "str":
            return f"str({anything(d - 1, lv)})"
        return f"{fn}({R.choice([seq(d - 1, lv), f'range({small_int()}, {R.randint(0, 15)})'])})"
    return f"{paren(seq(d - 1, lv), 0.2)} if {paren(boolean(d - 1, lv), 0.2)} else {paren(seq(d - 1, lv), 0.2)}"


def anything(d, lv=()):
    r = R.random()
    if r < 0.5:
        return num(d, lv)
    if r < 0.75:
        return seq(d, lv)
    return boolean(d, lv)


# ---- hand-picked cases --------------------------------------------------------------------------

HAND_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hand_cases.txt")


def hand_cases():
    with open(HAND_FILE) as f:
        return [line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")]


def main():
    out = sys.stdout
    out.write("# Generated by make_cases.py with CPython %s; do not edit by hand.\n" % sys.version.split()[0])
    for name, value in ENV.items():
        out.write(f"env {name}\t{value!r}\n")
    seen = set()
    cases = hand_cases()
    while len(cases) < 4000 + 400:
        maker = R.choice([num, num, boolean, seq, anything])
        cases.append(maker(R.randint(1, 4)))
    for src in cases:
        if src in seen or "\t" in src:
            continue
        seen.add(src)
        exp = expected(src)
        if exp is None:
            continue
        out.write(f"{src}\t{exp}\n")


if __name__ == "__main__":
    main()
