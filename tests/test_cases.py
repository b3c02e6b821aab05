"""The case corpus: every rule end to end, at the line a user would look.

Each ``tests/cases/<area>/{valid,invalid}/<case>/`` directory is a tiny repository. An
invalid case holds the object under test (plus what it needs, such as the runtime a TrainJob
runs on) and ``expect.yaml``: every error and warning of the run as
``[code, file, line, field_path]``, in the report's order. A valid case is the compliant
variant and must produce no errors or warnings. A case with a ``base/`` directory checks
transition rules: ``base/`` is committed to a fresh git repository, the case's own files are
written over it, and the run compares against ``--base HEAD``.

Case names start with the rule code they prove, without the area (``xobj/invalid/ttl-short``
proves ``xobj.ttl-short``); a ``--`` suffix tells variants of one code apart. The coverage
tests below walk the model's CEL rules and the rule-code catalogue, so a new rule without a
case fails here.

``python -m pytest tests/test_cases.py --update-cases`` rewrites the expect.yaml files from
what trainc reports; review the diff in git before committing it.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.fuzz.seeds import validate_only
from tests.support.compiled import compile_collected
from trainc.app import ValidationReport, validate_paths
from trainc.cache.store import Store
from trainc.diagnostics import CATALOGUE, Severity
from trainc.errors import UsageError
from trainc.model.introspect import ListOf, MapOf, Struct, TypeNode, fields_of, markers_of
from trainc.model.kinds import INPUT_KINDS
from trainc.model.markers import Rule, class_markers

CASES = Path(__file__).parent / "cases"
AREAS = (
    "cel",
    "xobj",
    "schema",
    "meta",
    "migrate",
    "load",
    "policy",
    "pod",
    "job",
    "compile",
    "kueue",
    "psa",
    "limitrange",
    "priority",
    "quota",
    "vap",
)
EXPECT = "expect.yaml"
BASE = "base"
VARIANT = "--"
UPDATE_OPTION = "--update-cases"

#: CEL rules of the model that no input can violate, with the reason.
UNFIREABLE_RULES = {
    "trainjob.patch-manager-immutable": (
        "manager is the list-map key of spec.runtimePatches, and the API server correlates "
        "map-list items by their keys: an entry whose manager changed has no old counterpart, "
        "so `self == oldSelf` only ever compares a manager with itself (upstream's rule, kept "
        "for fidelity; cel/valid/trainjob.patch-manager-immutable shows a rename passing)"
    ),
}

#: Catalogue codes of the xobj, schema, meta and migrate families that no input can
#: trigger, with the reason.
UNFIREABLE_CODES = {
    "schema.invalid": (
        "the fallback for a jsonschema-rs error kind that structural.py does not translate; "
        "the generated schemas use only keywords it does translate (type, required, enum, "
        "bounds, lengths, item and property counts, pattern, format, uniqueItems, anyOf, "
        "additionalProperties), never not, oneOf, const, multipleOf or the like"
    ),
}

#: ``load.*`` codes about file content, which the load area must cover.
LOAD_CONTENT_CODES = (
    "load.syntax",
    "load.duplicate-key",
    "load.tab-indent",
    "load.non-string-key",
    "load.template-syntax",
    "load.template-undefined",
    "load.template-security",
    "load.template-error",
    "load.unknown-kind",
    "load.missing-name",
    "load.not-an-object",
)

Finding = tuple[str, str | None, int | None, str | None]

_HEADER = (
    "# [code, file, line, field_path] of every error and warning, in report order.\n"
    f"# Regenerate with: python -m pytest tests/test_cases.py {UPDATE_OPTION}\n"
)


@dataclass(frozen=True, slots=True)
class Case:
    """One case directory."""

    area: str
    validity: str
    name: str

    @property
    def path(self) -> Path:
        return CASES / self.area / self.validity / self.name

    @property
    def id(self) -> str:
        return f"{self.area}/{self.validity}/{self.name}"

    @property
    def valid(self) -> bool:
        return self.validity == "valid"

    @property
    def has_base(self) -> bool:
        return (self.path / BASE).is_dir()

    @property
    def validate_only(self) -> bool:
        """Whether the case's trainc.yaml says ``deploy: TrainJob``: nothing compiles."""
        return validate_only(self.path)

    @property
    def code(self) -> str:
        """The rule code the case is named after."""
        return f"{self.area}.{self.name.split(VARIANT, 1)[0]}"


def discover_cases() -> list[Case]:
    """Every case directory, sorted by area, validity and name."""
    return [
        Case(area.parent.name, area.name, case.name)
        for area in sorted(CASES.glob("*/*"))
        if area.is_dir()
        for case in sorted(area.iterdir())
        if case.is_dir()
    ]


ALL_CASES = discover_cases()


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


def run_case(case: Case, root: Path) -> ValidationReport:
    """Materialise ``case`` as a repository at ``root`` and validate all of it."""
    return validate_paths([], cwd=root, base=materialise(case, root))


def materialise(case: Case, root: Path) -> str | None:
    """Write ``case`` as a repository at ``root``; the base revision when it has one."""
    root.mkdir()
    base = None
    if case.has_base:
        _git(root, "init", "-q")
        shutil.copytree(case.path / BASE, root, dirs_exist_ok=True)
        _git(root, "add", "-A")
        _git(root, "commit", "-q", "-m", "base")
        base = "HEAD"
    else:
        (root / ".git").mkdir()  # the repository root marker, so discovery stops here

    def skip(directory: str, names: list[str]) -> set[str]:
        return {BASE, EXPECT} & set(names) if Path(directory) == case.path else set()

    shutil.copytree(case.path, root, dirs_exist_ok=True, ignore=skip)
    return base


def findings_of(report: ValidationReport) -> list[Finding]:
    """Errors and warnings as expect.yaml lists them."""
    return [
        (d.code, d.file, d.line, d.field_path)
        for d in report.diagnostics
        if d.severity is not Severity.INFO
    ]


def render_expect(findings: list[Finding]) -> str:
    """expect.yaml text: one JSON-style flow list per finding (JSON is YAML)."""
    return _HEADER + _body(findings)


def _body(findings: list[Finding]) -> str:
    return "".join(f"- {json.dumps(list(f))}\n" for f in findings) if findings else "[]\n"


def read_expect(path: Path) -> list[Finding]:
    """The findings an expect.yaml lists."""
    data = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    assert isinstance(data, list), f"{path}: expected a list of findings"
    found: list[Finding] = []
    for item in data:
        assert isinstance(item, list), f"{path}: {item!r} is not [code, file, line, field_path]"
        assert len(item) == 4, f"{path}: {item!r} is not [code, file, line, field_path]"
        code, file, line, field_path = item
        found.append((code, file, line, field_path))
    return found


def _explain(case: Case, expected: list[Finding], report: ValidationReport) -> str:
    actual = findings_of(report)
    diff = difflib.unified_diff(
        _body(expected).splitlines(),
        _body(actual).splitlines(),
        fromfile=f"{case.id}/{EXPECT}",
        tofile="actual",
        lineterm="",
    )
    details = [
        f"  {d.file}:{d.line}:{d.column}: {d.severity}[{d.code}] {d.message}"
        for d in report.diagnostics
        if d.severity is not Severity.INFO
    ]
    return "\n".join(
        [
            f"{case.id}: the findings differ from {EXPECT}",
            *diff,
            "actual diagnostics:",
            *(details or ["  (none)"]),
            f"if the new findings are right, accept them with {UPDATE_OPTION} and review the diff",
        ]
    )


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_case(case: Case, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    report = run_case(case, tmp_path / "repo")
    actual = findings_of(report)
    if case.valid:
        assert not actual, _explain(case, [], report)
        return
    expect = case.path / EXPECT
    if request.config.getoption(UPDATE_OPTION):
        text = render_expect(actual)
        if not expect.is_file() or expect.read_text(encoding="utf-8") != text:
            expect.write_text(text, encoding="utf-8")
    assert expect.is_file(), f"{case.id}: no {EXPECT}; write it with {UPDATE_OPTION}"
    expected = read_expect(expect)
    if actual != expected:
        pytest.fail(_explain(case, expected, report), pytrace=False)
    assert case.code in {code for code, *_ in actual}, (
        f"{case.id} is named after {case.code}, which the run does not report"
    )


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_compile_gives_the_verdict_of_validate(case: Case, tmp_path: Path) -> None:
    """One verdict: compile reports exactly validation's errors, at the same places.

    Transition rules need ``--base``, which compile does not take, so both run without it.
    """
    root = tmp_path / "repo"
    materialise(case, root)
    validation = validate_paths([], cwd=root)
    if case.validate_only:
        with pytest.raises(UsageError, match="deploy: TrainJob"):
            compile_collected([], cwd=root)
        return
    compiled = compile_collected([], cwd=root)
    errors = {(d.code, d.file, d.line, d.message) for d in validation.diagnostics if d.is_error}
    compile_errors = {
        (d.code, d.file, d.line, d.message) for d in compiled.diagnostics if d.is_error
    }
    assert compile_errors == errors
    assert compiled.exit_code == validation.exit_code


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_a_cache_changes_no_finding_and_no_byte(case: Case, tmp_path: Path) -> None:
    """The cache only saves time: a run that fills it and one that reads it report and
    compile exactly what a run without it does (``--base`` included)."""
    root = tmp_path / "repo"
    base = materialise(case, root)
    store = Store.open(tmp_path / "cache")
    assert isinstance(store, Store), store
    runs = [validate_paths([], cwd=root, base=base, cache=cache) for cache in (None, store, store)]
    assert runs[0].diagnostics == runs[1].diagnostics == runs[2].diagnostics
    sources = [{path: source.text for path, source in run.sources.items()} for run in runs]
    assert sources[0] == sources[1] == sources[2]
    if case.validate_only:  # compile refuses the repository (see the test above)
        return
    compiled = [compile_collected([], cwd=root, cache=cache) for cache in (None, store, store)]
    outputs = [(c.diagnostics, c.files, c.stream) for c in compiled]
    assert outputs[0] == outputs[1] == outputs[2]


def test_the_corpus_is_laid_out_as_documented() -> None:
    areas = {path.name for path in CASES.iterdir() if path.is_dir()}
    assert areas == set(AREAS)
    for area in AREAS:
        assert {p.name for p in (CASES / area).iterdir()} <= {"valid", "invalid"}, area
    names = {case.id for case in ALL_CASES}
    for case in ALL_CASES:
        files = {p.name for p in case.path.iterdir()}
        if case.valid:
            assert EXPECT not in files, f"{case.id}: valid cases expect nothing, drop {EXPECT}"
        else:
            assert EXPECT in files, f"{case.id}: no {EXPECT}"
            twin = f"{case.area}/valid/{case.name}"
            assert twin in names, f"{case.id} has no compliant variant {twin}"
        assert files - {EXPECT, BASE}, f"{case.id} holds no input files"


# --------------------------------------------------------------------------- coverage


def _named_codes(*, areas: tuple[str, ...] = AREAS, base: bool | None = None) -> set[str]:
    """Codes that the expect.yaml of some invalid case names."""
    return {
        code
        for case in ALL_CASES
        if not case.valid and case.area in areas and (base is None or case.has_base == base)
        for code, *_ in _expected(case)
    }


@cache
def _expected_cached(path: Path) -> tuple[Finding, ...]:
    return tuple(read_expect(path))


def _expected(case: Case) -> tuple[Finding, ...]:
    path = case.path / EXPECT
    return _expected_cached(path) if path.is_file() else ()


def _rule_ids(markers: Iterable[object]) -> dict[str, bool]:
    """Rule ids among ``markers``, each with whether it is a transition rule."""
    return {m.id: "oldSelf" in m.rule for m in markers if isinstance(m, Rule)}


def _nested(node: TypeNode) -> Iterator[TypeNode]:
    """``node`` and the item or value types of the lists and maps it is made of."""
    yield node
    if isinstance(node, ListOf):
        yield from _nested(node.item)
    elif isinstance(node, MapOf):
        yield from _nested(node.value)


def declared_rules() -> dict[str, bool]:
    """Every CEL rule id of the input kinds' models, and whether it is a transition rule."""
    rules: dict[str, bool] = {}
    pending = [info.model for info in INPUT_KINDS]
    for cls in pending:
        rules.update(_rule_ids(class_markers(cls)))
    seen: set[type] = set()
    while pending:
        cls = pending.pop()
        if cls in seen:
            continue
        seen.add(cls)
        for field in fields_of(cls):
            for node in _nested(field.type):
                rules.update(_rule_ids(markers_of(node, Rule)))
                if isinstance(node, Struct):
                    pending.append(node.cls)
    return rules


def test_the_model_walk_finds_rules_of_every_kind() -> None:
    rules = declared_rules()
    assert {"trainjob.name-format", "trainjob.deadline-immutable"} <= rules.keys()
    assert {"runtime.one-ml-policy", "jobset.network-immutable"} <= rules.keys()
    assert not rules["trainjob.name-format"]
    assert rules["trainjob.deadline-immutable"]


def test_every_create_time_rule_has_an_invalid_case() -> None:
    wanted = {
        f"cel.{rule}"
        for rule, transition in declared_rules().items()
        if not transition and rule not in UNFIREABLE_RULES
    }
    missing = wanted - _named_codes(areas=("cel",), base=False)
    assert not missing, f"add a case under tests/cases/cel/invalid/ for: {sorted(missing)}"


def test_every_transition_rule_has_an_invalid_case_with_a_base() -> None:
    wanted = {
        f"cel.{rule}"
        for rule, transition in declared_rules().items()
        if transition and rule not in UNFIREABLE_RULES
    }
    missing = wanted - _named_codes(areas=("cel",), base=True)
    assert not missing, f"add a case with base/ to tests/cases/cel/invalid/ for: {sorted(missing)}"


def test_rules_that_cannot_fire_are_declared_and_have_no_case() -> None:
    declared = declared_rules()
    assert set(UNFIREABLE_RULES) <= declared.keys()
    assert all(UNFIREABLE_RULES.values())
    assert not {f"cel.{rule}" for rule in UNFIREABLE_RULES} & _named_codes()
    for rule in UNFIREABLE_RULES:
        assert any(c.valid and c.area == "cel" and c.name == rule for c in ALL_CASES), rule


@pytest.mark.parametrize(
    "family", ["xobj", "schema", "meta", "migrate", "pod", "job", "kueue", "priority"]
)
def test_every_catalogue_code_has_an_invalid_case(family: str) -> None:
    wanted = {code for code in CATALOGUE if code.startswith(f"{family}.")} - set(UNFIREABLE_CODES)
    missing = wanted - _named_codes()
    assert not missing, f"add a case under tests/cases/{family}/invalid/ for: {sorted(missing)}"


def test_codes_that_cannot_fire_are_catalogued_and_have_no_case() -> None:
    assert set(UNFIREABLE_CODES) <= CATALOGUE.keys()
    assert all(UNFIREABLE_CODES.values())
    assert not set(UNFIREABLE_CODES) & _named_codes()


def test_load_codes_about_file_content_have_cases() -> None:
    missing = set(LOAD_CONTENT_CODES) - _named_codes(areas=("load",))
    assert not missing, f"add a case under tests/cases/load/invalid/ for: {sorted(missing)}"
