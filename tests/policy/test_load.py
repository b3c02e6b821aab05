from __future__ import annotations

from pathlib import Path

import pytest

from trainc.config.limits import InputLimits
from trainc.config.settings import PolicySettings, RepoConfig
from trainc.diagnostics import Diagnostic, Severity
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonObject
from trainc.policy.apply import PolicySet, load_policies

VALID = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: {name}
spec:
  params:
    limit: 4
    mode: strict
  validations:
    - expression: "true"
"""


def repo(tmp_path: Path, files: dict[str, str], **settings: object) -> RepoConfig:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    policies = PolicySettings(**settings)  # type: ignore[arg-type]  # test-only kwargs
    return RepoConfig(root=tmp_path, config_file="trainc.yaml", policies=policies)


def located(result: PolicySet) -> list[tuple[str, str | None, int | None, str | None]]:
    return [(d.code, d.file, d.line, d.field_path) for d in result.diagnostics]


def test_loads_sorted_files_and_multi_document_streams(tmp_path: Path) -> None:
    config = repo(
        tmp_path,
        {
            "policies/b.yaml": VALID.format(name="b1") + "---\n" + VALID.format(name="b2"),
            "policies/nested/a.yml": VALID.format(name="a"),
            "policies/notes.txt": "not a policy",
        },
    )
    result = load_policies(config)
    assert result.diagnostics == ()
    assert [p.name for p in result.policies] == ["b1", "b2", "a"]
    assert set(result.sources) == {"policies/b.yaml", "policies/nested/a.yml"}


def test_sources_hold_the_enabled_builtins_only(tmp_path: Path) -> None:
    enabled = frozenset({"max-gpus-per-job", "require-active-deadline"})
    config = repo(tmp_path, {"policies/a.yaml": VALID.format(name="a")}, enable=enabled)
    assert set(load_policies(config).sources) == {
        "policies/a.yaml",
        "<builtin>/max-gpus-per-job.yaml",
        "<builtin>/require-active-deadline.yaml",
    }


def test_missing_default_directory_is_no_policies(tmp_path: Path) -> None:
    result = load_policies(repo(tmp_path, {}))
    assert result.policies == ()
    assert result.diagnostics == ()


def test_missing_configured_directory_is_reported(tmp_path: Path) -> None:
    result = load_policies(repo(tmp_path, {}, paths=("org-policies",)))
    assert located(result) == [("policy.invalid", "trainc.yaml", None, None)]
    assert "org-policies" in result.diagnostics[0].message


def test_schema_errors_point_at_their_lines(tmp_path: Path) -> None:
    text = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: broken
spec:
  validationActions: [Audit]
  validations:
    - expresion: "true"
"""
    result = load_policies(repo(tmp_path, {"policies/p.yaml": text}))
    assert result.policies == ()
    assert sorted(located(result), key=lambda entry: (entry[2] or 0, entry[3] or "")) == [
        ("policy.invalid", "policies/p.yaml", 6, "spec.validationActions[0]"),
        ("policy.invalid", "policies/p.yaml", 8, "spec.validations[0]"),
        ("policy.invalid", "policies/p.yaml", 8, "spec.validations[0].expresion"),
    ]
    unknown = next(d for d in result.diagnostics if d.field_path.endswith("expresion"))  # type: ignore[union-attr]  # every finding here has a path
    assert unknown.hint == "did you mean 'expression'?"


def test_other_kinds_in_policy_files_are_invalid(tmp_path: Path) -> None:
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"
    result = load_policies(repo(tmp_path, {"policies/p.yaml": text}))
    assert {d.code for d in result.diagnostics} == {"policy.invalid"}
    assert result.policies == ()


@pytest.mark.parametrize(
    ("metadata", "line", "path"),
    [("  labels: {}\n", 3, "metadata"), ("  name: Not_A_Label\n", 4, "metadata.name")],
)
def test_policy_names_must_be_dns_labels(
    tmp_path: Path, metadata: str, line: int, path: str
) -> None:
    text = VALID.replace("  name: {name}\n", metadata)
    result = load_policies(repo(tmp_path, {"policies/p.yaml": text}))
    assert located(result) == [("policy.invalid", "policies/p.yaml", line, path)]


def test_compile_errors_point_at_each_expression(tmp_path: Path) -> None:
    text = """\
apiVersion: trainc.dev/v1alpha1
kind: ValidationPolicy
metadata:
  name: typo
spec:
  matchConditions:
    - name: ok
      expression: object.kind == 'TrainJob'
  variables:
    - name: v
      expression: request.userInfo
  validations:
    - expression: object.spec.trainer.numNodes <
      messageExpression: "'n=' + "
"""
    result = load_policies(repo(tmp_path, {"policies/p.yaml": text}))
    assert result.policies == ()
    assert located(result) == [
        ("policy.invalid", "policies/p.yaml", 11, "spec.variables[0].expression"),
        ("policy.invalid", "policies/p.yaml", 13, "spec.validations[0].expression"),
        ("policy.invalid", "policies/p.yaml", 14, "spec.validations[0].messageExpression"),
    ]
    assert "undeclared reference to 'request.userInfo'" in result.diagnostics[0].message
    assert result.diagnostics[1].message.startswith("expression does not compile: ")


def test_one_broken_policy_does_not_hide_the_others(tmp_path: Path) -> None:
    config = repo(
        tmp_path,
        {
            "policies/a.yaml": VALID.format(name="good"),
            "policies/b.yaml": VALID.format(name="bad").replace('"true"', "(("),
        },
    )
    result = load_policies(config)
    assert [p.name for p in result.policies] == ["good"]
    assert [d.code for d in result.diagnostics] == ["policy.invalid"]


def test_duplicate_names(tmp_path: Path) -> None:
    config = repo(
        tmp_path,
        {
            "policies/a.yaml": VALID.format(name="same"),
            "policies/b.yaml": "# second\n" + VALID.format(name="same"),
        },
    )
    result = load_policies(config)
    assert [p.name for p in result.policies] == ["same"]
    assert located(result) == [("policy.invalid", "policies/b.yaml", 5, "metadata.name")]
    assert "policies/a.yaml" in result.diagnostics[0].message


def test_repository_policy_clashing_with_an_enabled_builtin(tmp_path: Path) -> None:
    config = repo(
        tmp_path,
        {"policies/a.yaml": VALID.format(name="max-gpus-per-job")},
        enable=frozenset({"max-gpus-per-job"}),
    )
    result = load_policies(config)
    assert [p.name for p in result.policies] == ["max-gpus-per-job"]
    assert result.diagnostics[0].file == "<builtin>/max-gpus-per-job.yaml"


def test_builtins_are_off_unless_enabled(tmp_path: Path) -> None:
    assert load_policies(repo(tmp_path, {})).policies == ()
    enabled = load_policies(repo(tmp_path, {}, enable=frozenset({"require-runtime-ttl"})))
    assert [p.name for p in enabled.policies] == ["require-runtime-ttl"]


def test_disable_turns_off_repository_policies(tmp_path: Path) -> None:
    config = repo(
        tmp_path,
        {"policies/a.yaml": VALID.format(name="a") + "---\n" + VALID.format(name="b")},
        disable=frozenset({"a"}),
    )
    assert [p.name for p in load_policies(config).policies] == ["b"]


def test_params_from_config_override_top_level_keys(tmp_path: Path) -> None:
    overrides: dict[str, JsonObject] = {"p": {"limit": 16, "extra": [1]}}
    config = repo(tmp_path, {"policies/a.yaml": VALID.format(name="p")}, params=overrides)
    (policy,) = load_policies(config).policies
    assert policy.params == {"limit": 16, "mode": "strict", "extra": [1]}


CONFIG_TEXT = """\
apiVersion: trainc.dev/v1alpha1
kind: Config
policies:
  enable:
    - max-gpus-per-job
    - max-gpu-per-job
  disable: [nope]
  params:
    unknown-policy: {a: 1}
"""


def test_unknown_names_in_config_point_at_the_entries(tmp_path: Path) -> None:
    (document,) = parse_documents(SourceFile("trainc.yaml", CONFIG_TEXT), InputLimits()).documents
    config = repo(
        tmp_path,
        {},
        enable=frozenset({"max-gpus-per-job", "max-gpu-per-job"}),
        disable=frozenset({"nope"}),
        params={"unknown-policy": {"a": 1}},
    )
    result = load_policies(config, config_document=document)
    assert [p.name for p in result.policies] == ["max-gpus-per-job"]
    assert located(result) == [
        ("policy.invalid", "trainc.yaml", 6, "policies.enable[1]"),
        ("policy.invalid", "trainc.yaml", 7, "policies.disable[0]"),
        ("policy.invalid", "trainc.yaml", 9, "policies.params[unknown-policy]"),
    ]
    assert "'max-gpu-per-job'" in result.diagnostics[0].message
    assert "max-gpus-per-job" in (result.diagnostics[0].hint or "")


def test_unknown_names_without_the_config_document_are_file_level(tmp_path: Path) -> None:
    result = load_policies(repo(tmp_path, {}, enable=frozenset({"nope"})))
    assert result.diagnostics == (
        Diagnostic(
            code="policy.invalid",
            severity=Severity.ERROR,
            message="policies.enable names 'nope', which is no built-in policy",
            file="trainc.yaml",
            line=None,
            column=None,
            hint=result.diagnostics[0].hint,
        ),
    )


def test_unreadable_policy_files_are_load_findings(tmp_path: Path) -> None:
    config = repo(tmp_path, {"policies/a.yaml": "a: [\n"})
    (tmp_path / "policies" / "b.yaml").write_bytes(b"\xff\xfe")
    result = load_policies(config)
    assert {(d.code, d.file) for d in result.diagnostics} == {
        ("load.syntax", "policies/a.yaml"),
        ("load.encoding", "policies/b.yaml"),
    }
