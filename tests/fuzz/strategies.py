"""Hypothesis strategies for the fuzz properties: repositories, valid ones and mutated ones.

Mutated repositories start from a :mod:`seed <tests.fuzz.seeds>` and edit it the ways a
pull request can go wrong: on the data of a document (wrong types, missing and extra
fields, huge numbers, unicode, deep nesting, duplicate keys, anchors and aliases, merge
keys, tags, grafts of other objects' parts), on a file's documents (empty, scalar and
duplicate documents, ``kind: List``, other kinds and versions), on its text and bytes
(broken syntax, tabs, line endings, byte-order marks, bad UTF-8, NUL, Jinja2), and on
the repository (files dropped, added, copied). Documents are written back as block YAML
by :func:`render_documents`, so findings have real lines to point at.

Valid repositories apply edits that keep a seed valid (labels, annotations, environment
variables, arguments, formatting), so that compile runs on inputs far from the ones its
tests were written for.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeAlias

from hypothesis import strategies as st

from tests.fuzz.seeds import Seed, seeds
from tests.load.yamltext import AMBIGUOUS, TOKENS, token_soup, yaml_streams
from trainc.model.json import JsonValue
from trainc.model.labels import API_VERSION

# --------------------------------------------------------------------------- YAML trees


@dataclass(frozen=True, slots=True, eq=False)
class Raw:
    """YAML written as it is: a tagged or odd scalar, an alias, a flow collection, a key.

    Instances compare by identity, so ``Raw("kind")`` can sit next to ``"kind"`` in a
    dict and render as a duplicate key.
    """

    text: str


@dataclass(frozen=True, slots=True, eq=False)
class Anchored:
    """A node with an anchor (``&name``) in front of it."""

    name: str
    node: Node


Key: TypeAlias = "str | Raw"
#: JSON data, Raw and Anchored nodes, in dicts and lists that mutations edit in place.
Node: TypeAlias = Any
Path: TypeAlias = tuple[Any, ...]

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9._/-]*\Z")
#: Plain words YAML 1.1 reads as booleans or null.
_RESOLVED = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})
#: Characters written escaped: line breaks YAML 1.1 folds, BOM, and the non-printable.
_ESCAPED = frozenset({0x85, 0x2028, 0x2029, 0xFEFF})


def _printable(code: int) -> bool:
    if code in _ESCAPED:
        return False
    return (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or code >= 0x10000
    )


def quote(text: str) -> str:
    """``text`` as a double-quoted YAML scalar that reads back as exactly ``text``."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif _printable(code):
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _float(value: float) -> str:
    if math.isnan(value):
        return ".nan"
    if math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    mantissa, _, exponent = repr(value).partition("e")
    if "." not in mantissa:
        mantissa += ".0"  # YAML 1.1 floats need a dot
    return f"{mantissa}e{exponent}" if exponent else mantissa


def _scalar(node: Node) -> str:
    if isinstance(node, Raw):
        return node.text
    if isinstance(node, float):
        return _float(node)
    if isinstance(node, str):
        plain = _PLAIN.match(node) and node.lower() not in _RESOLVED
        return node if plain else quote(node)
    return json.dumps(node)  # null, booleans, integers and the empty collections


def _is_block(node: Node) -> bool:
    return isinstance(node, dict | list) and bool(node)


def _entry(head: str, node: Node, indent: int) -> list[str]:
    anchor = ""
    if isinstance(node, Anchored):
        anchor, node = f" &{node.name}", node.node
    if _is_block(node):
        return [head + anchor, *_block(node, indent + 2)]
    return [f"{head}{anchor} {_scalar(node)}"]


def _block(node: Node, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(node, dict) and node:
        return [
            line
            for key, value in node.items()
            for line in _entry(f"{pad}{_scalar(key)}:", value, indent)
        ]
    if isinstance(node, list) and node:
        return [line for item in node for line in _entry(f"{pad}-", item, indent)]
    return [pad + _scalar(node)]


def render_documents(documents: list[Node]) -> str:
    """Block YAML of each document, separated by ``---``."""
    return "---\n".join("\n".join(_block(document, 0)) + "\n" for document in documents)


def _unwrap(node: Node) -> Node:
    return node.node if isinstance(node, Anchored) else node


def _children(node: Node) -> list[tuple[Any, Node]]:
    node = _unwrap(node)
    if isinstance(node, dict):
        return list(node.items())
    if isinstance(node, list):
        return list(enumerate(node))
    return []


#: How deep mutations reach: deeper nodes are left alone, so that nesting a deep value
#: inside another keeps documents within the renderer's and deepcopy's recursion.
MAX_EDIT_DEPTH = 40


def _paths(node: Node, prefix: Path = ()) -> Iterator[Path]:
    """Every path below ``node`` down to MAX_EDIT_DEPTH, in document order."""
    if len(prefix) >= MAX_EDIT_DEPTH:
        return
    for key, child in _children(node):
        path = (*prefix, key)
        yield path
        yield from _paths(child, path)


def _at(root: Node, path: Path) -> Node:
    node = root
    for key in path:
        container = _unwrap(node)
        assert isinstance(container, dict | list)
        node = container[key]
    return node


def _container(root: Node, path: Path) -> Any:
    """The dict or list holding the node at ``path``, so it can be set or deleted."""
    return _unwrap(_at(root, path[:-1]))


# --------------------------------------------------------------------------- values

HUGE_INTS = (
    2**31 - 1, 2**31, -(2**31) - 1, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1,
    10**40, -(10**40), 10**400,
)  # fmt: skip
#: Scalars with a tag, an odd type, a number out of every range, an alias.
RAW_SCALARS = (
    "1.0e+400", "-1.0e+400", "1e400", ".inf", "-.inf", ".nan", "0x" + "f" * 24, "0o777",
    "0b101", "1_000", "190:20:30", "-0", "2001-12-14", "2001-12-14t21:59:43.10-05:00",
    "~", "''", '""', "!!binary aGVsbG8=", "!!str 5", "!!int x", "!!int 0x1F", "!!float abc",
    "!!float 1", "!!bool maybe", "!!null x", "!!timestamp nope", "!custom x", "!x {a: 1}",
    "!!set {a, b}", "!!omap [a: 1, b: 2]", "!!pairs [a: 1]", "!!map [1]", "!!seq {a: 1}",
    "!!python/object/apply:os.system ['true']", "!!python/name:os.system ''",
    "*undefined", '"\\ud83d\\ude00"', '"\\ud800"', '"\\0"', '"\\x85\\u2028"', "<<", "=",
    "{a: 1, a: 2}", "[a, {b: [c, {d: e}]}]", "{? [a]: b}", "{[a]: b}", "&x [*x]",
    "&x {self: *x}", "[" * 99 + "]" * 99, "[" * 101 + "]" * 101, "[" * 1000 + "]" * 1000,
    "{a: " * 150 + "b" + "}" * 150,
    "|\n  block\n  text", ">-\n  folded", "'it''s'", "- not a sequence",
)  # fmt: skip
#: Strings that break names, labels, paths, reporters or terminals.
SPECIAL_STRINGS = (
    "", " ", "\t", "\n", "\x00", "\x7f", "\x1b[31mred", "\u202eevil", "\u200b", "e\u0301",
    "\ufeff", "\u2028", "😀" * 40, "日本語", "İ", "ß", "Bad Name", "-start", "end-", "UPPER",
    "a.b", "a/b", "a" * 64, "a" * 254, "x" * 70_000, "../../etc/passwd", "${HOME}", "{{ x }}",
    "%s%n", "trainer.kubeflow.org/trainjob-ancestor-step", "kubernetes.io/x", "a:b", "#",
    "- a", "? x", "@", "`", "null", "true", "0", "-1", "1e3", "0x10", "100Mi", "1.5", "4Gi",
)  # fmt: skip

_json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=20),
    st.sampled_from(SPECIAL_STRINGS),
)
json_trees: st.SearchStrategy[Node] = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def _deep(draw: st.DrawFn) -> Node:
    """A block-nested chain of maps or lists around the bounds (``limits.maxDepth``: 100)."""
    depth = draw(st.sampled_from((2, 50, 98, 99, 100, 101, 150)))
    leaf: Node = draw(_json_scalars)
    as_list = draw(st.booleans())
    for _ in range(depth):
        leaf = [leaf] if as_list else {"a": leaf}
    return leaf


#: Values of a leaf's own type, which keep a document schema-valid more often than not.
_QUANTITIES = ("0", "1m", "1e3", "100Gi", "-1", "1.5", "1Ei", "0.1", "1k", "2Mi", "1e-3", "+1")
_SMALL_INTS = (0, 1, -1, 2, 59, 60, 61, 63, 64, 65535, 65536)
_same_type: dict[type, st.SearchStrategy[Node]] = {
    bool: st.booleans(),
    int: st.sampled_from(_SMALL_INTS + HUGE_INTS) | st.integers(-10, 100),
    float: st.floats(),
    str: st.one_of(
        st.from_regex(r"[a-z]([-a-z0-9.]{0,70}[a-z0-9])?", fullmatch=True),
        st.sampled_from(_QUANTITIES + SPECIAL_STRINGS),
        st.text(max_size=20),
    ),
}

hostile_values: st.SearchStrategy[Node] = st.one_of(
    st.sampled_from(RAW_SCALARS).map(Raw),
    st.sampled_from(SPECIAL_STRINGS),
    st.sampled_from(HUGE_INTS),
    st.sampled_from(AMBIGUOUS).map(Raw),
    _json_scalars,
    json_trees,
    _deep(),
)

# --------------------------------------------------------------------------- seed material


def _walk(node: JsonValue) -> Iterator[JsonValue]:
    yield node
    for _, child in _children(node):
        yield from _walk(child)


def _seed_nodes() -> Iterator[JsonValue]:
    for seed in seeds():
        for file in seed.files.values():
            for document in file.documents or ():
                yield from _walk(document)


@functools.cache
def vocabulary() -> tuple[str, ...]:
    """Every key of every seed document: real field names, to put in the wrong places."""
    return tuple(sorted({key for node in _seed_nodes() if isinstance(node, dict) for key in node}))


@functools.cache
def subtrees() -> tuple[JsonValue, ...]:
    """The small collections of the seeds, to graft where they do not belong."""
    return tuple(
        node
        for node in _seed_nodes()
        if isinstance(node, dict | list) and node and len(repr(node)) < 2000
    )


API_VERSIONS = (
    API_VERSION, "trainer.kubeflow.org/v2alpha1", "trainer.kubeflow.org/v1", "kubeflow.org/v1",
    "v1", "", "trainer.kubeflow.org/", "Trainer.Kubeflow.org/v1alpha1", "jobset.x-k8s.io/v1alpha2",
)  # fmt: skip
KINDS = (
    "TrainJob", "TrainingRuntime", "ClusterTrainingRuntime", "List", "ConfigMap", "trainjob",
    "Config", "ValidationPolicy", "", "TrainJobList", "JobSet",
)  # fmt: skip
#: Whole documents that are not mappings, or not well-formed ones.
RAW_DOCUMENTS = (
    "", "~", "[]", "{}", "42", "'text'", "- a\n- b", "!!binary aGk=", "&x [*x]", "&x {a: *x}",
    "*x", "? a\n? b", "!!map {}", "kind: List\napiVersion: v1\nitems: 7", "<<: {kind: TrainJob}",
)  # fmt: skip
#: Places a mutation adds files at: odd names, templates, the config, policies.
NEW_PATHS = (
    "extra.yaml", "extra.yml", "sub dir/é x.yaml", "extra.yaml.j2", "trainc.yaml",
    "policies/extra.yaml", "a/b/c/d/e.yaml", "-dash.yaml", ".hidden.yaml", "UPPER.YAML",
)  # fmt: skip
#: Jinja2 fragments: values, control flow, comments, sandbox escapes, NUL line markers.
JINJA = (
    "{{ 1 }}", "{{ x }}", "{{ values }}", "{% if true %}", "{% endif %}", "{# note #}",
    "{% for i in range(3) %}- {{ i }}\n{% endfor %}", "{{ ''.__class__.__mro__ }}",
    "{{ 'a' * 10**9 }}", "{{ 9 ** 10**9 }}", "{{ range(10**9) | list }}", "{{ 1 / 0 }}",
    "{{ '\\x001\\x00' }}", "{{ '\\x0099999\\x00x' }}", "{% raw %}", "{{", "}}", "{%",
    "{% filter replace('a', '\\x00') %}a9a{% endfilter %}", "{{ '\\n' }}",
    "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "{{ lipsum(1000) }}",
)  # fmt: skip

DIRECTIVES = (
    "%YAML 1.2\n---\n",
    "%YAML 1.1\n---\n",
    "%TAG ! tag:x,2000:\n---\n",
    "%YAML 2.0\n---\n",
)

names = st.sampled_from(("job", "torch", "a", "Bad", "x" * 70, "", "torch-distributed")) | st.text(
    max_size=10
)


field_names = st.deferred(lambda: st.sampled_from(vocabulary()))
#: Copies: mutations edit what they insert, and the seeds must stay as they are.
seed_subtrees = st.deferred(lambda: st.sampled_from(subtrees())).map(copy.deepcopy)
_specs = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(field_names, inner, max_size=4),
    max_leaves=20,
)
#: Keys that are no strings, or not plain ones.
_RAW_KEYS = ("1", "on", "null", "[a, b]", "{a: 1}", "? x", "<<", "''")
_new_keys = field_names | st.text(min_size=1, max_size=12) | st.sampled_from(_RAW_KEYS).map(Raw)
_merged = st.sampled_from(("*a1", "[*a1]", "{}", "[{a: 1}, {b: 2}]", "1", "[1]")).map(Raw)


@st.composite
def random_objects(draw: st.DrawFn) -> Node:
    """A trainer object from scratch: real field names, random structure and values."""
    spec = draw(_specs)
    return {
        "apiVersion": draw(st.sampled_from(API_VERSIONS[:3])),
        "kind": draw(st.sampled_from(KINDS[:3])),
        "metadata": {"name": draw(names)},
        "spec": spec,
    }


# --------------------------------------------------------------------------- mutations


_TREE_EDITS = st.sampled_from(
    ("_perturb", "_perturb", "_perturb", "_replace", "_replace", "_delete", "_delete",
     "_add_key", "_duplicate_key", "_alias", "_merge", "_retype", "_graft", "_duplicate_item")
)  # fmt: skip


class _Mutator:
    """Draws one edit at a time: of a document's data, a file's documents or its text."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw
        self._anchors = 0

    def _pick(self, options: list[Path]) -> Path:
        return self._draw(st.sampled_from(options))

    def _where(self, root: Node, kind: type) -> list[Path]:
        return [path for path in [(), *_paths(root)] if isinstance(_unwrap(_at(root, path)), kind)]

    def _mapping(self, root: Node) -> dict[Key, Node]:
        """Some mapping of the document (the document itself is one, mostly)."""
        node = _unwrap(_at(root, self._pick(self._where(root, dict) or [()])))
        return node if isinstance(node, dict) else {}

    def tree(self, root: Node) -> Node:
        """``root`` with one node replaced, removed, added, duplicated, aliased or retyped."""
        paths = list(_paths(root))
        if not paths:
            return self._draw(hostile_values)
        getattr(self, self._draw(_TREE_EDITS))(root, paths)
        return root

    def _replace(self, root: Node, paths: list[Path]) -> None:
        path = self._pick(paths)
        _container(root, path)[path[-1]] = self._draw(hostile_values)

    def _perturb(self, root: Node, paths: list[Path]) -> None:
        """A leaf replaced by another value of its type: odd, but often still valid."""
        leaves = [path for path in paths if type(_unwrap(_at(root, path))) in _same_type]
        if leaves:
            path = self._pick(leaves)
            holder = _container(root, path)
            holder[path[-1]] = self._draw(_same_type[type(_unwrap(holder[path[-1]]))])

    def _delete(self, root: Node, paths: list[Path]) -> None:
        path = self._pick(paths)
        del _container(root, path)[path[-1]]

    def _key(self, node: dict[Key, Node]) -> Key:
        """A new key: a field name, a typo of a key here, text, or no string at all."""
        existing = [key for key in node if isinstance(key, str) and key]
        if not existing or self._draw(st.booleans()):
            return self._draw(_new_keys)
        key = self._draw(st.sampled_from(existing))
        return key.upper() if self._draw(st.booleans()) else key[:-1] or key + key

    def _add_key(self, root: Node, paths: list[Path]) -> None:
        node = self._mapping(root)
        node[self._key(node)] = self._draw(hostile_values)

    def _duplicate_key(self, root: Node, paths: list[Path]) -> None:
        node = self._mapping(root)
        keys = [key for key in node if isinstance(key, str)]
        if keys:
            key = self._draw(st.sampled_from(keys))
            value = copy.deepcopy(node[key]) if self._draw(st.booleans()) else None
            node[Raw(_scalar(key))] = value if value is not None else self._draw(hostile_values)

    def _alias(self, root: Node, paths: list[Path]) -> None:
        """An anchor on one node and an alias to it elsewhere: before, after, inside or over it."""
        anchored, alias = self._pick(paths), self._pick(paths)
        holder = _container(root, anchored)
        target = holder[anchored[-1]]
        if not isinstance(target, Anchored):  # a node has one anchor at most
            self._anchors += 1
            target = holder[anchored[-1]] = Anchored(f"a{self._anchors}", target)
        _container(root, alias)[alias[-1]] = Raw(f"*{target.name}")

    def _merge(self, root: Node, paths: list[Path]) -> None:
        node = self._mapping(root)
        node[Raw("<<")] = self._draw(_merged | seed_subtrees)

    def _retype(self, root: Node, paths: list[Path]) -> None:
        path = self._pick(paths)
        holder = _container(root, path)
        node = _unwrap(holder[path[-1]])
        if isinstance(node, dict):
            holder[path[-1]] = list(node.values())
        elif isinstance(node, list):
            holder[path[-1]] = {str(index): item for index, item in enumerate(node)}
        else:
            holder[path[-1]] = [node] if self._draw(st.booleans()) else {_scalar(node): node}

    def _graft(self, root: Node, paths: list[Path]) -> None:
        path = self._pick(paths)
        _container(root, path)[path[-1]] = self._draw(seed_subtrees)

    def _duplicate_item(self, root: Node, paths: list[Path]) -> None:
        lists = [path for path in self._where(root, list) if _unwrap(_at(root, path))]
        if lists:
            node = _unwrap(_at(root, self._pick(lists)))
            assert isinstance(node, list)
            node.append(copy.deepcopy(self._draw(st.sampled_from(node))))

    def documents(self, documents: list[Node]) -> list[Node]:
        """The documents of a file with one of them edited, retargeted, replaced or added."""
        index = self._draw(st.integers(0, len(documents) - 1))
        edit = self._draw(
            st.sampled_from(
                ("tree", "tree", "tree", "tree", "target", "raw", "add", "drop", "list")
            )
        )
        if edit == "tree":
            documents[index] = self.tree(documents[index])
        elif edit == "target" and isinstance(documents[index], dict):
            document = documents[index]
            assert isinstance(document, dict)
            document["apiVersion"] = self._draw(st.sampled_from(API_VERSIONS))
            document["kind"] = self._draw(st.sampled_from(KINDS))
        elif edit == "raw":
            documents[index] = Raw(self._draw(st.sampled_from(RAW_DOCUMENTS)))
        elif edit == "add":
            copied = self._draw(st.booleans())
            extra = copy.deepcopy(documents[index]) if copied else self._draw(random_objects())
            documents.insert(index, extra)
        elif edit == "drop" and len(documents) > 1:
            del documents[index]
        elif edit == "list":
            documents = [{"apiVersion": "v1", "kind": "List", "items": documents}]
        return documents

    def text(self, path: str, text: str) -> tuple[str, str | bytes]:
        """The file (possibly renamed to a template) with its text or bytes damaged."""
        at = self._draw(st.integers(0, len(text)))
        edit = self._draw(st.sampled_from(("text", "text", "text", "bytes", "jinja")))
        if edit == "bytes":
            bad = self._draw(st.sampled_from((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\x80")))
            data = text.encode("utf-8")
            return path, data[:at] + bad + data[at:]
        if edit == "jinja":
            line_start = text.rfind("\n", 0, at) + 1
            snippet = self._draw(st.sampled_from(JINJA))
            target = path if path.endswith(".j2") else path + ".j2"
            return target, text[:line_start] + snippet + text[line_start:]
        return path, self._damaged(text, at)

    def _damaged(self, text: str, at: int) -> str:
        draw = self._draw
        edits: dict[str, Callable[[], str]] = {
            "insert": lambda: (
                text[:at] + "".join(draw(st.lists(st.sampled_from(TOKENS)))) + text[at:]
            ),
            "delete": lambda: text[:at] + text[at + draw(st.integers(1, 200)) :],
            "truncate": lambda: text[:at],
            "crlf": lambda: text.replace("\n", "\r\n"),
            "cr": lambda: text.replace("\n", "\r"),
            "bom": lambda: "\ufeff" + text,
            "tab": lambda: text.replace("\n  ", "\n\t", draw(st.integers(1, 3))),
            "directive": lambda: draw(st.sampled_from(DIRECTIVES)) + text,
        }
        return edits[draw(st.sampled_from(sorted(edits)))]()


@dataclass(frozen=True, slots=True)
class Repo:
    """A repository to write: its seed's name, and file contents by relative path."""

    seed: str
    files: dict[str, str | bytes]


new_files: st.SearchStrategy[str] = st.one_of(
    yaml_streams(),
    token_soup,
    random_objects().map(lambda document: render_documents([document])),
    st.lists(random_objects(), min_size=1, max_size=3).map(render_documents),
)


def _edit_repository(draw: st.DrawFn, files: dict[str, str | bytes]) -> None:
    """Drop, add or copy a file."""
    edit = draw(st.sampled_from(("drop", "add", "copy")))
    existing = sorted(files)
    if edit == "drop" and len(existing) > 1:
        del files[draw(st.sampled_from(existing))]
    elif edit == "copy":
        files[draw(st.sampled_from(NEW_PATHS))] = files[draw(st.sampled_from(existing))]
    else:
        files[draw(st.sampled_from(NEW_PATHS))] = draw(new_files)


@st.composite
def mutated_repositories(draw: st.DrawFn, seed_name: str | None = None) -> Repo:
    """A seed (the one named, or any) with one to four edits of its documents, files and
    text."""
    seed: Seed = draw(st.sampled_from(_seeds(seed_name)))
    mutator = _Mutator(draw)
    trees = {path: file for path, file in seed.files.items() if file.documents}
    files: dict[str, str | bytes] = {path: file.text for path, file in seed.files.items()}
    edited: dict[str, list[Node]] = {}
    # Mostly the manifests: a broken trainc.yaml or policy hides every other problem.
    manifests = sorted(path for path in trees if path != "trainc.yaml" and "policies/" not in path)
    for _ in range(draw(st.integers(1, 3)) if trees else 0):
        settings_too = not manifests or draw(st.integers(0, 9)) == 0
        path = draw(st.sampled_from(sorted(trees) if settings_too else manifests))
        documents = edited.get(path) or copy.deepcopy(list(trees[path].documents or ()))
        edited[path] = mutator.documents(documents)
    files.update((path, render_documents(documents)) for path, documents in edited.items())
    if draw(st.integers(0, 99)) < 25:
        path = draw(st.sampled_from(sorted(files)))
        text = files.pop(path)
        assert isinstance(text, str)  # only the text edit makes bytes
        target, content = mutator.text(path, text)
        files[target] = content
    if draw(st.integers(0, 99)) < 20:
        _edit_repository(draw, files)
    return Repo(seed.name, files)


# --------------------------------------------------------------------------- valid edits

#: Label values the API server accepts (63 characters at most, alphanumeric at the ends).
label_values = st.from_regex(r"([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?", fullmatch=True)
#: Anything a container argument, an environment value or an annotation may hold.
free_text = st.text(max_size=40) | st.sampled_from(SPECIAL_STRINGS[:20])


def _valid_edit(draw: st.DrawFn, job: dict[Key, Node]) -> None:
    """Labels, annotations, environment variables and arguments."""
    metadata = job.setdefault("metadata", {})
    assert isinstance(metadata, dict)
    for index, value in enumerate(draw(st.lists(label_values, max_size=3))):
        labels = metadata.setdefault("labels", {})
        assert isinstance(labels, dict)
        labels[f"fuzz.trainc.dev/l{index}"] = value
    for index, value in enumerate(draw(st.lists(free_text, max_size=3))):
        annotations = metadata.setdefault("annotations", {})
        assert isinstance(annotations, dict)
        annotations[f"fuzz.trainc.dev/a{index}"] = value
    spec = job.get("spec")
    trainer = spec.get("trainer") if isinstance(spec, dict) else None
    if not isinstance(trainer, dict):
        return
    env = trainer.setdefault("env", [])
    assert isinstance(env, list)
    env += [
        {"name": f"FUZZ_{index}", "value": value}
        for index, value in enumerate(draw(st.lists(free_text, max_size=3)))
    ]
    if "args" in trainer:
        trainer["args"] = draw(st.lists(free_text, max_size=4))


def _is_trainjob(document: Node) -> bool:
    return isinstance(document, dict) and document.get("kind") == "TrainJob"


def _seeds(name: str | None) -> list[Seed]:
    """The seed named ``name``, or every seed."""
    return [seed for seed in seeds() if name in (None, seed.name)]


@st.composite
def valid_repositories(draw: st.DrawFn, seed_name: str | None = None) -> Repo:
    """A seed (the one named, or any) rewritten in block YAML, its TrainJobs edited in
    ways that keep them valid.

    Files holding a TrainJob are rewritten: quoting and flow style change, comments go.
    """
    seed: Seed = draw(st.sampled_from(_seeds(seed_name)))
    files: dict[str, str | bytes] = {path: file.text for path, file in seed.files.items()}
    for path, file in seed.files.items():
        documents: list[Node] = copy.deepcopy(list(file.documents or ()))
        if not any(_is_trainjob(document) for document in documents):
            continue
        for document in documents:
            if _is_trainjob(document):
                assert isinstance(document, dict)
                _valid_edit(draw, document)
        files[path] = render_documents(documents)
    return Repo(seed.name, files)
