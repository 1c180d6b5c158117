"""The value of an `#if`/`#elif` condition, computed as the C++ preprocessor computes it.

The preprocessor hands over the condition after `defined` and macro expansion. What is left is
an integer constant expression with C++'s rules (C++17 [cpp.cond], C99 6.10.1), which differ from
Python's in ways a kernel can see:
- every value is a 64-bit `intmax_t`, or `uintmax_t` when a literal is unsigned (a `u` suffix,
  or too large for `intmax_t`); an operation with one unsigned operand is unsigned, and results
  wrap around at 64 bits;
- `/` and `%` truncate toward zero (`-7 / 2` is -3, `-7 % 2` is -1);
- literals may be octal (`010` is 8), hexadecimal, binary (`0b101`), carry digit separators
  (`1'000`) and suffixes (`u`, `l`, `ll`), or be characters (`'A'`, `'\\n'`);
- `?:`, the alternative tokens (`and`, `or`, `not`, `bitand`, `bitor`, `xor`, `compl`,
  `not_eq`) and short-circuit `&&`, `||` and `?:` (`#if 0 && 1 / 0` is legal);
- an identifier left after expansion is 0 (`true` and `false` are 1 and 0: the preprocessor
  defines them as words of C++).
The expression is parsed by precedence climbing into nested tuples and evaluated lazily, so
nothing is computed that the C++ rules would not compute. There is no `**`, no big number and
no Python `eval`: a condition can neither hang the compiler nor mean something else than on the GPU.
"""
import re

BITS = 64
MASK = (1 << BITS) - 1
INTMAX = (1 << (BITS - 1)) - 1

TOKEN = re.compile(r"""\s*(?:
      (?P<char>[uUL]?'(?:\\.|[^'\\])+')
    | (?P<number>\.?\d(?:'?[\w.])*)
    | (?P<word>[A-Za-z_]\w*)
    | (?P<op><<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&^|!~?:()])
    )""", re.VERBOSE)

ALTERNATIVE_TOKENS = {"and": "&&", "or": "||", "not": "!", "bitand": "&", "bitor": "|",
                      "xor": "^", "compl": "~", "not_eq": "!="}

# binary operators by precedence, loosest first; all associate to the left
BINARY_LEVELS = (("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", "<=", ">", ">="),
                 ("<<", ">>"), ("+", "-"), ("*", "/", "%"))
PRECEDENCE = {op: level for level, ops in enumerate(BINARY_LEVELS) for op in ops}

ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39,
           '"': 34, "?": 63, "e": 27}


class ConditionError(ValueError):
    """A condition that is not an integer constant expression; the message says what is wrong."""


class Value:
    """A preprocessor integer: its 64-bit pattern read as signed or unsigned."""
    __slots__ = ("bits", "unsigned")

    def __init__(self, number, unsigned=False):
        self.bits = number & MASK
        self.unsigned = unsigned

    @property
    def number(self):
        if self.unsigned or self.bits <= INTMAX:
            return self.bits
        return self.bits - (1 << BITS)

    def __bool__(self):
        return self.bits != 0


def is_true(condition):
    """Whether the expanded `condition` text is nonzero; ConditionError when it cannot be computed."""
    tokens = tokenize(condition)
    if not tokens:
        raise ConditionError("#if with no expression")
    parser = Parser(tokens)
    tree = parser.conditional()
    if parser.at < len(tokens):
        raise ConditionError(f"unexpected {tokens[parser.at][1]!r} after a complete expression")
    return bool(evaluate(tree))


def tokenize(text):
    tokens, at = [], 0
    text = text.rstrip()
    while at < len(text):
        m = TOKEN.match(text, at)
        if not m or m.end() == at:
            rest = text[at:].strip()
            raise ConditionError(f"{rest[:1]!r} is not allowed in a preprocessor condition"
                                 if rest else "unexpected end of the condition")
        at = m.end()
        kind = m.lastgroup
        tok = m.group(kind)
        if kind == "word" and tok in ALTERNATIVE_TOKENS:
            kind, tok = "op", ALTERNATIVE_TOKENS[tok]
        tokens.append((kind, tok))
    return tokens


class Parser:
    """Precedence climbing over the tokens; each method is named after what it parses."""

    def __init__(self, tokens):
        self.tokens = tokens
        self.at = 0

    def peek(self):
        return self.tokens[self.at][1] if self.at < len(self.tokens) else None

    def take(self, expected=None):
        if self.at >= len(self.tokens):
            raise ConditionError(f"missing {expected!r} at the end of the condition" if expected
                                 else "the condition ends where an operand should follow")
        kind, tok = self.tokens[self.at]
        if expected is not None and tok != expected:
            raise ConditionError(f"expected {expected!r}, found {tok!r}")
        self.at += 1
        return kind, tok

    def conditional(self):
        test = self.binary(0)
        if self.peek() != "?":
            return test
        self.take("?")
        then = self.conditional()
        self.take(":")
        return ("?:", test, then, self.conditional())

    def binary(self, level):
        if level == len(BINARY_LEVELS):
            return self.unary()
        left = self.binary(level + 1)
        while self.peek() in BINARY_LEVELS[level] and self.tokens[self.at][0] == "op":
            _, op = self.take()
            left = (op, left, self.binary(level + 1))
        return left

    def unary(self):
        if self.peek() in ("+", "-", "~", "!"):
            _, op = self.take()
            return ("unary" + op, self.unary())
        if self.peek() == "(":
            self.take("(")
            inner = self.conditional()
            self.take(")")
            return inner
        kind, tok = self.take()
        if kind == "number":
            return ("value", number_literal(tok))
        if kind == "char":
            return ("value", char_literal(tok))
        if kind == "word":             # an identifier no macro replaced; C++'s true is 1
            return ("value", Value(int(tok == "true")))
        raise ConditionError(f"expected an operand, found {tok!r}")


def number_literal(text):
    digits = text.replace("'", "")
    m = re.fullmatch(r"(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]*|[1-9]\d*)([uU]?(?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU])",
                     digits)
    if not m:
        if re.fullmatch(r"[\d.]+(?:[eE][-+]?\d+)?[fFlL]?", digits) and ("." in digits or "e" in digits.lower()):
            raise ConditionError(f"{text} is a floating-point number: a preprocessor condition takes integers only")
        raise ConditionError(f"{text} is not an integer literal")
    body, suffix = m.groups()
    if body[:2] in ("0x", "0X"):
        number, decimal = int(body[2:], 16), False
    elif body[:2] in ("0b", "0B"):
        number, decimal = int(body[2:], 2), False
    elif body.startswith("0"):
        number, decimal = int(body, 8), False
    else:
        number, decimal = int(body), True
    if number > MASK:
        raise ConditionError(f"{text} is too large for the preprocessor's 64-bit integers")
    unsigned = "u" in suffix.lower() or (number > INTMAX and not decimal)
    if number > INTMAX and decimal and not unsigned:
        raise ConditionError(f"{text} is too large for a signed 64-bit integer (write {text}u)")
    return Value(number, unsigned)


def char_literal(text):
    body = text[text.index("'") + 1:-1]
    if body.startswith("\\"):
        esc = body[1:]
        if esc[:1] in ("x", "X") and len(esc) > 1:
            return Value(int(esc[1:], 16))
        if esc[:1].isdigit():
            return Value(int(esc, 8))
        if esc in ESCAPES:
            return Value(ESCAPES[esc])
        raise ConditionError(f"unknown escape sequence in {text}")
    if len(body) != 1:
        raise ConditionError(f"{text}: a character literal in a condition holds one character")
    return Value(ord(body))


def evaluate(tree):
    kind = tree[0]
    if kind == "value":
        return tree[1]
    if kind.startswith("unary"):
        operand = evaluate(tree[1])
        op = kind[5:]
        if op == "!":
            return Value(int(not operand))
        if op == "-":
            return Value(-operand.number, operand.unsigned)
        if op == "~":
            return Value(~operand.bits, operand.unsigned)
        return operand
    if kind == "?:":           # the branches' common type, though only one is computed
        chosen = evaluate(tree[2] if evaluate(tree[1]) else tree[3])
        return Value(chosen.bits, is_unsigned(tree))
    if kind == "&&":
        return Value(int(bool(evaluate(tree[1])) and bool(evaluate(tree[2]))))
    if kind == "||":
        return Value(int(bool(evaluate(tree[1])) or bool(evaluate(tree[2]))))
    return arithmetic(kind, evaluate(tree[1]), evaluate(tree[2]))


def is_unsigned(tree):
    """The type of `tree`'s value, known without computing it (C's usual arithmetic conversions)."""
    kind = tree[0]
    if kind == "value":
        return tree[1].unsigned
    if kind in ("unary!", "&&", "||") or kind in COMPARISONS:
        return False
    if kind.startswith("unary"):
        return is_unsigned(tree[1])
    if kind in ("<<", ">>"):
        return is_unsigned(tree[1])
    return is_unsigned(tree[-2]) or is_unsigned(tree[-1])


COMPARISONS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
               "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def arithmetic(op, a, b):
    if op in ("<<", ">>"):
        count = b.number
        if not 0 <= count < BITS:
            raise ConditionError(f"shift by {count} in a preprocessor condition: the count must be 0 to {BITS - 1}")
        if op == "<<":
            return Value(a.bits << count, a.unsigned)
        return Value(a.number >> count, a.unsigned)     # a signed value shifts its sign in
    unsigned = a.unsigned or b.unsigned                 # the usual arithmetic conversions
    x, y = (a.bits, b.bits) if unsigned else (a.number, b.number)
    if op in COMPARISONS:
        return Value(int(COMPARISONS[op](x, y)))
    if op in ("/", "%"):
        if y == 0:
            raise ConditionError("division by zero in a preprocessor condition")
        quotient = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)   # C truncates toward zero
        return Value(quotient if op == "/" else x - quotient * y, unsigned)
    result = {"+": x + y, "-": x - y, "*": x * y, "&": x & y, "|": x | y, "^": x ^ y}[op]
    return Value(result, unsigned)
