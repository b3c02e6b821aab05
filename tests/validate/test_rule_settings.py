"""trainc.yaml's ``rules``: only configurable rules may be set, and the setting takes effect."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.compiled import compile_collected
from tests.support.manifests import TORCH_RUNTIME, trainjob_yaml, write
from trainc.api import load_config, validate_paths
from trainc.diagnostics import Severity
from trainc.validate.rule_settings import CONFIGURABLE, check_rule_settings

CODE = "compile.plaintext-credential"
TRAINJOB = trainjob_yaml() + "  trainer:\n    env:\n      - {name: HF_TOKEN, value: hf_x}\n"


def _repo(root: Path, rules: str | None) -> Path:
    (root / ".git").mkdir()
    if rules is not None:
        write(root, "trainc.yaml", f"rules:\n{rules}")
    write(root, "runtime.yaml", TORCH_RUNTIME)
    write(root, "trainjob.yaml", TRAINJOB)
    return root


def test_only_trainc_s_own_judgements_are_configurable() -> None:
    assert CODE in CONFIGURABLE
    assert not {code for code in CONFIGURABLE if code.split(".")[0] in {"pod", "job", "schema"}}


def test_unknown_and_cluster_codes_are_config_errors(tmp_path: Path) -> None:
    rules = "  compile.plaintext-credentials: error\n  pod.env: 'off'\n  " + CODE + ": error\n"
    loaded = load_config(cwd=_repo(tmp_path, rules))
    assert loaded.config is not None
    typo, cluster = check_rule_settings(loaded.config, loaded.document)
    assert (typo.code, typo.file, typo.line) == ("config.invalid", "trainc.yaml", 2)
    assert typo.hint == f"did you mean {CODE!r}?"
    assert (cluster.code, cluster.line) == ("config.invalid", 3)
    assert "not a configurable rule" in cluster.message


def test_a_policy_is_pointed_at_policies_disable(tmp_path: Path) -> None:
    loaded = load_config(cwd=_repo(tmp_path, "  policy.team-label: 'off'\n"))
    assert loaded.config is not None
    (policy,) = check_rule_settings(loaded.config, loaded.document)
    assert policy.hint == "turn it off with policies.disable: [team-label]"


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
