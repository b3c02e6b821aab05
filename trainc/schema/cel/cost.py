"""A deterministic bound on what a rule costs, checked before the rule is evaluated.

The API server meters every evaluation and stops a rule at 1,000,000 cost units and an
object's rules at 10,000,000 (``PerCallLimit`` and ``RuntimeCELCostBudget`` in
https://github.com/kubernetes/kubernetes/blob/master/staging/src/k8s.io/apiserver/pkg/apis/cel/config.go).
cel-expr-python meters nothing, so trainc estimates the cost from the shape of the bound
values and the shape of the expression, and reports ``cel.cost-exceeded`` instead of
evaluating when the estimate is over a limit. The model, in Kubernetes' units (one unit
per operation; string
traversal 0.1 per character; regex 0.25 per pattern character, multiplied by the string
traversal, as ``k8s.io/apiserver/pkg/cel/library/cost.go`` charges):

- ``N`` nodes, ``L`` the longest list and ``S`` the longest string of the bound values;
- ``T`` operations (identifiers, literals and operators), ``d`` the comprehension nesting
  (``sets.contains``/``equivalent``/``intersects`` count twice: they are quadratic),
  ``E`` equality and membership tests, ``X`` string-traversing calls, ``R`` regex calls
  with pattern length ``P`` (the longest string literal, or ``S`` when there is none);
- a comprehension runs at most ``I = L'^d`` times, ``L' = max(L, T)`` because a literal
  list in the expression cannot hold more items than the expression has tokens;
- cost = ``(T + X·⌈0.1·S⌉ + R·⌈0.1·(S+1)⌉·⌈0.25·P⌉)·(1 + I) + E₀·N + E₁·N·L'^(d-1)``,
  where ``E₀`` tests outside comprehensions may traverse the whole value and ``E₁`` tests
  inside them traverse its items, whose sizes add up to at most ``N`` per pass.

It is an upper bound: a realistic manifest (lists of hundreds, strings of kilobytes)
stays orders of magnitude under the limits, while a 100,000-item list under a nested
``all(... exists(...))`` is refused without being evaluated. Whatever the estimate lets
through is still bounded by cel-cpp, which stops an evaluation after
:data:`~trainc.schema.cel.engine.ITERATION_LIMIT` comprehension iterations (a limit
Kubernetes does not have; trainc reports it as ``cel.cost-exceeded`` too).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable, Sequence

from trainc.records import dataclass

#: The API server's limit for one evaluation of one rule (``PerCallLimit``).
PER_CALL_LIMIT = 1_000_000
#: The API server's budget for all rules of one object (``RuntimeCELCostBudget``).
PER_OBJECT_BUDGET = 10_000_000

_STRING_TRAVERSAL = 0.1
_REGEX_LENGTH = 0.25

_COMPREHENSIONS = frozenset(
    {
        "all",
        "exists",
        "exists_one",
        "existsOne",
        "map",
        "filter",
        "sortBy",
        "transformList",
        "transformMap",
        "transformMapEntry",
        "isSorted",
        "sum",
        "min",
        "max",
        "indexOf",
        "lastIndexOf",
        "join",
    }
)
_QUADRATIC = frozenset({"contains", "equivalent", "intersects"})
_STRING_CALLS = frozenset(
    {
        "contains",
        "startsWith",
        "endsWith",
        "lowerAscii",
        "upperAscii",
        "replace",
        "split",
        "substring",
        "trim",
        "charAt",
        "reverse",
        "quote",
        "format",
        "url",
        "isURL",
        "ip",
        "isIP",
        "cidr",
        "isCIDR",
        "quantity",
        "isQuantity",
        "semver",
        "isSemver",
    }
)
_REGEX_CALLS = frozenset({"matches", "find", "findAll"})
_EQUALITY = frozenset({"==", "!=", "in"})
_UNCOUNTED = frozenset({"(", ")", "[", "]", "{", "}", ",", "."})

_TOKEN = re.compile(
    r"""(?P<string>[rRbB]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''
                               |"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
      |(?P<comment>//[^\n]*)
      |(?P<space>\s+)
      |(?P<word>[A-Za-z_][A-Za-z0-9_]*)
      |(?P<number>0[xX][0-9a-fA-F]+[uU]?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?)
      |(?P<op>==|!=|<=|>=|&&|\|\||.)""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Shape:
    """Size of a bound value: all it takes to bound what a rule can do with it."""

    nodes: int = 1
    longest_list: int = 0
    longest_string: int = 0

    @staticmethod
    def of_container(children: Iterable[Shape], length: int = 0) -> Shape:
        """Shape of an object or list (``length`` items) holding ``children``."""
        nodes, longest_list, longest_string = 1, length, 0
        for child in children:
            nodes += child.nodes
            longest_list = max(longest_list, child.longest_list)
            longest_string = max(longest_string, child.longest_string)
        return Shape(nodes, longest_list, longest_string)

    def plus(self, other: Shape) -> Shape:
        """Shape of two values bound together (``self`` and ``oldSelf``)."""
        return Shape.of_container((self, other))

    def describe(self) -> str:
        """The sizes the estimate used, for messages."""
        return (
            f"{self.nodes:,} values, lists of up to {self.longest_list:,} items, "
            f"strings of up to {self.longest_string:,} characters"
        )


@dataclass(frozen=True, slots=True)
class Profile:
    """The shape of an expression: the counts the cost model multiplies."""

    operations: int = 0
    nesting: int = 0
    outer_equalities: int = 0
    inner_equalities: int = 0
    string_calls: int = 0
    regex_calls: int = 0
    longest_literal: int | None = None


Token = tuple[str, str]


@functools.cache
def tokens(expression: str) -> tuple[Token, ...]:
    """``expression``'s tokens as (kind, text), without spaces and comments.

    Kinds: ``string``, ``word`` (identifiers and keywords), ``number``, ``op`` (operators
    and punctuation, one token each).
    """
    return tuple((kind, text) for kind, text, _ in token_spans(expression))


Span = tuple[str, str, int]


@functools.cache
def token_spans(expression: str) -> tuple[Span, ...]:
    """:func:`tokens` with each token's offset in ``expression``, to rewrite it in place."""
    return tuple(
        (match.lastgroup or "op", match.group(), match.start())
        for match in _TOKEN.finditer(expression)
        if match.lastgroup not in ("space", "comment")
    )


@functools.cache
def profile(expression: str) -> Profile:
    """Count what the cost model needs by scanning ``expression``'s tokens once."""
    found = tokens(expression)
    counts = _Counts()
    frames: list[int] = []
    for index, (kind, text) in enumerate(found):
        if text == "(":
            frames.append(_weight(found, index))
        elif text == ")" and frames:
            frames.pop()
        call = _weight(found, index + 1) if _is_call(found, index) else None
        counts.add(kind, text, call=call, depth=sum(frames))
    return counts.profile()


@dataclass(slots=True)
class _Counts:
    operations: int = 0
    nesting: int = 0
    outer_equalities: int = 0
    inner_equalities: int = 0
    string_calls: int = 0
    regex_calls: int = 0
    longest_literal: int | None = None

    def add(self, kind: str, text: str, *, call: int | None, depth: int) -> None:
        """Count one token; ``call`` is the comprehension weight of a call it names."""
        self.nesting = max(self.nesting, depth)
        if text in _UNCOUNTED:
            return
        self.operations += 1
        if text in _EQUALITY:
            if depth:
                self.inner_equalities += 1
            else:
                self.outer_equalities += 1
        elif kind == "string":
            self.longest_literal = max(self.longest_literal or 0, len(text))
        elif call is not None and text in _REGEX_CALLS:
            self.regex_calls += 1
        elif call == 0 and text in _STRING_CALLS:
            self.string_calls += 1

    def profile(self) -> Profile:
        return Profile(
            self.operations,
            self.nesting,
            self.outer_equalities,
            self.inner_equalities,
            self.string_calls,
            self.regex_calls,
            self.longest_literal,
        )


def _is_call(tokens: Sequence[Token], index: int) -> bool:
    return index + 1 < len(tokens) and tokens[index + 1][1] == "("


def _weight(tokens: Sequence[Token], index: int) -> int:
    """Comprehension levels the call opened by the parenthesis at ``index`` adds."""
    match [text for _, text in tokens[max(0, index - 3) : index]]:
        case ["sets", ".", name] if name in _QUADRATIC:
            return 2
        case [*_, ".", name] if name in _COMPREHENSIONS:
            return 1
        case _:
            return 0


def estimate(expression: str, shape: Shape) -> int:
    """Upper bound, in Kubernetes cost units, of one evaluation of ``expression``."""
    counts = profile(expression)
    width = max(shape.longest_list, counts.operations)
    iterations = width**counts.nesting if counts.nesting else 0
    string_scan = math.ceil(_STRING_TRAVERSAL * shape.longest_string)
    pattern = counts.longest_literal if counts.longest_literal is not None else shape.longest_string
    regex_scan = math.ceil(_STRING_TRAVERSAL * (shape.longest_string + 1)) * math.ceil(
        _REGEX_LENGTH * pattern
    )
    per_pass = counts.operations + counts.string_calls * string_scan
    per_pass += counts.regex_calls * regex_scan
    inner = width ** (counts.nesting - 1) if counts.nesting else 0
    equalities = counts.outer_equalities * shape.nodes
    equalities += counts.inner_equalities * shape.nodes * inner
    return per_pass * (1 + iterations) + equalities


@dataclass(slots=True)
class CostBudget:
    """What is left of one object's budget; every evaluation is charged its estimate."""

    remaining: int = PER_OBJECT_BUDGET

    def charge(self, cost: int) -> bool:
        """Take ``cost`` from the budget; False once it is overdrawn."""
        self.remaining -= cost
        return self.remaining >= 0
