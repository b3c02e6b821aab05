"""trainc.yaml's ``rules`` and ``perPathRules``: any rule may be set, a code that names no
rule is a config error, and the setting takes effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.app import validate_paths
from trainc.config.read import load_config
from trainc.config.rule_codes import check_rule_settings
from trainc.diagnostics import Severity

CODE = "compile.plaintext-credential"
TRAINJOB = trainjob_yaml() + "  trainer:\n    env:\n      - {name: HF_TOKEN, value: hf_x}\n"


def _repo(root: Path, rules: str | None) -> Path:
    (root / ".git").mkdir()
    if rules is not None:
        write(root, "trainc.yaml", f"rules:\n{rules}")
    write(root, "runtime.yaml", TORCH_RUNTIME)
    write(root, "trainjob.yaml", TRAINJOB)
    return root


def test_only_codes_that_name_no_rule_are_config_errors(tmp_path: Path) -> None:
    rules = (
        "  compile.plaintext-credentials: error\n  pod.env: 'off'\n  policy.team-label: warning\n"
        f"  {CODE}: error\nperPathRules:\n  - paths: [experiments/**]\n"
        "    rules: {xobj.ttl-shot: 'off', xobj.ttl-short: 'off'}\n"
    )
    loaded = load_config(cwd=_repo(tmp_path, rules))
    assert loaded.config is not None
    typo, per_path = check_rule_settings(loaded.config, loaded.document)
    assert (typo.code, typo.file, typo.line) == ("config.invalid", "trainc.yaml", 2)
    assert typo.message == "rules names 'compile.plaintext-credentials', which is no rule code"
    assert typo.hint == f"did you mean {CODE!r}?"
    assert (per_path.code, per_path.line) == ("config.invalid", 8)
    assert per_path.hint == "did you mean 'xobj.ttl-short'?"


@pytest.mark.parametrize(
    ("rules", "severity", "exit_code"),
    [
        (None, Severity.ERROR, 1),
        (f"  {CODE}: warning\n", Severity.WARNING, 0),
        (f"  {CODE}: error\n", Severity.ERROR, 1),
        (f"  {CODE}: 'off'\n", None, 0),
    ],
)
def test_the_configured_level_applies(
    tmp_path: Path, rules: str | None, severity: Severity | None, exit_code: int
) -> None:
    root = _repo(tmp_path, rules)
    report = validate_paths([], cwd=root)
    found = [d.severity for d in report.diagnostics if d.code == CODE]
    assert found == ([severity] if severity is not None else [])
    assert report.exit_code == exit_code
    compiled = compile_collected([], cwd=root)
    assert compiled.exit_code == exit_code


def test_a_code_like_no_rule_says_what_a_code_is(tmp_path: Path) -> None:
    loaded = load_config(cwd=_repo(tmp_path, "  E501: 'off'\n"))
    assert loaded.config is not None
    (unknown,) = check_rule_settings(loaded.config, loaded.document)
    assert unknown.hint is not None
    assert "`error[pod.image]`" in unknown.hint
