#!/usr/bin/env python3
"""Generates python_cases.txt: expressions with the value CPython gives them, for expr_test.

Each line is `<expression>\\t<expected repr>` or `<expression>\\t!error` where Python raises.
Lines `env <name>\\t<repr>` bind the variables every case may read. Regenerate with

    python3 tuner/expr/testdata/make_cases.py > tuner/expr/testdata/python_cases.txt

The expressions are random (fixed seed) plus hand-picked edge cases. Python evaluates each one with
three deliberate differences of tune's language mirrored in the evaluation, so the expected values
are what tune must produce:
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

HAND = """
-7 // 2
-7 % 3
7 % -3
-7 // -2
7 // 0
7 % 0
7.5 // 0
7.5 % 0.0
1 / 0
0 ** -1
0.0 ** -1
2 ** -1
2 ** 0
(-2) ** 63
(-2) ** 64
2 ** 62 + (2 ** 62 - 1)
2 ** 63 - 1
-9223372036854775807 - 1
-9223372036854775807 - 2
9223372036854775807 + 1
9223372036854775807 * 2
(-9223372036854775807 - 1) // -1
(-9223372036854775807 - 1) % -1
abs(-9223372036854775807 - 1)
-(-9223372036854775807 - 1)
9223372036854775807 / 3
9007199254740993 / 1
0 / -9223372036854775807
0 / 9223372036854775807
-9223372036854775807 / -2
(2 ** 62 + 1) / 3
1 << 62
1 << 63
-1 << 63
1 << -1
5 >> 100
-5 >> 100
True + True
True * 3.5
True / 2
-True
~True
True & True
True | 2
True ^ True
1 == 1.0 == True
'a' == 1
'a' != 1
'a' < 1
[1, 2] == (1, 2)
[1, 2] < [1, 3]
[1, 2] < [1, 2, 0]
(1, 'a') < (1, 'b')
(1, 'a') < (2, 1)
[1] < (1,)
None == None
None < None
32 <= 64 * 2 <= 1024
1 < 2 > 3
1 < 3 > 2 != 2
0 and 1 / 0
1 or 1 / 0
0 or 5
'' or []
[] and 1
not []
not 'a'
1 if 0 else 2 if 0 else 3
3 in [1, 2, 3]
3.0 in (1, 2, 3)
'b' in 'abc'
'' in 'abc'
1 in 'abc'
1 in 5
[1] in [[1], 2]
'abc'[-1]
'abc'[3]
[1, 2, 3][-4]
[1, 2, 3][True]
[1, 2, 3][1.0]
[1, 2, 3][::-1]
[1, 2, 3, 4, 5][1:-1:2]
'hello'[::-2]
'hello'[10:]
(1, 2, 3)[-100:100]
[1, 2][::0]
[0, 1, 2, 3][-9223372036854775807:2]
[1, 2] * -1
[1, 2] * 2
2 * 'ab'
'ab' + 'cd'
'ab' + 1
[1] + (2,)
() + (1,)
(1,) * 3
round(2.5)
round(3.5)
round(-0.5)
round(-1.5)
round(0.5, 0)
round(2.675, 2)
round(1234.5, -2)
round(1250, -2)
round(1350, -2)
round(-1250, -2)
round(5.0, -1)
round(15.0, -1)
round(5e22, -23)
round(1.5e308, -308)
round(0.125, 2)
round(0.375, 2)
round(1e300)
round(1e18)
round(1e19)
round(1.0, 400)
round(1.0, -400)
round(7, 3)
round(7, None)
round(2.5, None)
round('a')
round(9223372036854775807, -1)
round(-9223372036854775807, -19)
int(3.99)
int(-3.99)
int(1e19)
int('  -12 ')
int('1_000')
int('_1')
int('1__0')
int('0x10')
int('')
int('-9223372036854775808')
int('9223372036854775808')
int([1])
float('1_0.5e1_0')
float('inf')
float('-Infinity')
float('1e400')
float('-1e-400')
float('.5')
float('5.')
float('.')
float('1e')
float(' 2.5 ')
float([])
str(1.5)
str([1, 'a'])
str('x')
str(None)
str((1,))
bool([])
bool('0')
bool(0.0)
len('abc')
len([1, [2, 3]])
len(5)
min([3, 1, 2])
min(3, 1, 2)
max(1, 1.0)
max(1.0, 1)
max([])
max('hello')
max([1, 'a'])
min((2, 1), (1, 5))
sum([1, 2.5])
sum([[1], [2]], [])
sum(['a'], '')
sum([1, 2], 10)
sum(range(101))
sorted([3, 1, 2])
sorted('cab')
sorted([1, 'a'])
sorted([(2, 'b'), (1, 'z'), (2, 'a')])
any([0, '', None])
all([1, 'x'])
all([])
any(x > 2 for x in [1, 3])
sum(x * x for x in range(4))
pow(2, 10)
pow(2, -2)
pow(2.0, 0.5)
(-8) ** 0.5
(-8.0) ** 3
10.0 ** 400
0.5 ** 10000
1e308 * 10
-1e308 * 10
1e308 * 10 - 1e308 * 10
divmod(-7, 2)
divmod(-7.5, 2)
divmod(7, 0)
divmod('a', 1)
abs(-2.5)
abs(True)
abs('a')
list('abc')
list((1, 2))
list(5)
tuple([1, 2])
tuple('ab')
tuple()
list()
int()
float()
str()
bool()
range(3)[1]
list(range(10, 0, -3))
list(range(0))
list(range(5, 1))
range(1, 2, 0)
list(range(1.5))
list(range(True, 3))
[i for i in range(3, 35, 2)]
[2 ** i for i in range(6)]
[1] + [2 * i for i in range(1, 11)]
list(range(32, 1000 + 1, 32))
[128 + 64 * i for i in range(15)]
[16 * i for i in range(1, 9)]
[i for i in range(1, 9)]
[x * y for x in range(4) for y in range(x) if (x + y) % 2]
[[y for y in range(x)] for x in range(3)]
[x for x in [x for x in L] if x != 2]
[a for a in L]
[a + x for x in L]
[c for c in 'hey']
[x for x in 5]
(262144 // 16) // 4
(20000000 // 128) + 1
10000000 // 256
1e16
1e15
0.1 + 0.2
-0.0
1e-5
0.0001
1 / 3
2 / 3
1e22
1e-7
123456789012345678.0
-1.5e-10
5e-324
1.7976931348623157e308
3.0 // 2
-3.5 // 2
3.5 % -2
-0.0 // 1
0.0 % -1
5 // 0.3
-5 % 0.3
1 // 0.1
(1,)
()
(1, 2,)
[1, 2,]
1, 2
1,
'it\\'s'
"a'b\\"c"
'\\x7f\\x01\\n'
'tab\\there'
None
True
False
'''triple'''
r'raw\\n'
'a' 'b' "c"
07
00
0_0
1__0
1_
0b2
0x
1e
1.e5
.5
1 +
(1
[1,, 2]
1 2
a =
a == 
L.foo
f(1)
print(1)
len()
len(1, 2)
range()
range(1, 2, 3, 4)
min()
abs(1, 2)
[x for x in]
[x for in L]
()()
1 if 2
1 if 2 else
not
-
a b
'abc
'abc\\'
x
a if b else c
a * b + c - f / g
s * 2 + e
L + list(T) + E
M[0][1] + M[1][0]
M[2]
T[-1] ** 2
N is None
N == 0
t is True
t == 1 and t is not False
a < b
b < a < 10
(a, b) < (a, 0)
s[1:] + s[:1]
L[::-1] + [len(s)]
max(L) + min(T) * sum(L)
[v for v in M if len(v) > 1]
"""


def main():
    out = sys.stdout
    out.write("# Generated by make_cases.py with CPython %s; do not edit by hand.\n" % sys.version.split()[0])
    for name, value in ENV.items():
        out.write(f"env {name}\t{value!r}\n")
    seen = set()
    cases = [line for line in HAND.strip("\n").split("\n") if line.strip()]
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
