from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from trainc.config.judgement import is_rule_code
from trainc.rulebook.__main__ import main
from trainc.rulebook.declared import declared_rules
from trainc.rulebook.files import CATALOGUE_PATH, PAGE_PATH, checkout_root, stale_files, write_files


def test_the_catalogue_and_docs_rules_md_are_what_the_declarations_generate() -> None:
    """Run `python -m trainc.rulebook` after changing a rule's declaration."""
    assert stale_files(checkout_root()) == []


def test_check_names_a_stale_file_and_write_brings_it_up_to_date(tmp_path: Path) -> None:
    (tmp_path / "trainc").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / PAGE_PATH).write_text("hand-edited\n", encoding="utf-8")

    assert stale_files(tmp_path) == [CATALOGUE_PATH, PAGE_PATH]
    assert write_files(tmp_path) == [CATALOGUE_PATH, PAGE_PATH]
    assert stale_files(tmp_path) == []
    assert (tmp_path / PAGE_PATH).read_text(encoding="utf-8") == (
        checkout_root() / PAGE_PATH
    ).read_text(encoding="utf-8")


def test_the_command_checks_without_writing() -> None:
    assert main(["--check"]) == 0


def test_reading_the_catalogue_imports_no_check_module() -> None:
    """A finding's severity, trainc.yaml's codes and the reporters read the generated
    catalogue: a pre-commit run pays for no check it does not run."""
    script = (
        "import sys\n"
        "from trainc.diagnostics import CATALOGUE, rule_for\n"
        "assert rule_for('load.template-syntax').summary\n"
        "assert len(CATALOGUE) > 100\n"
        "print(sorted(m for m in sys.modules if m.startswith('trainc.')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "['trainc.catalogue', 'trainc.diagnostics']"


def test_a_finding_made_with_only_its_module_imported_has_the_declared_severity() -> None:
    script = (
        "import sys\n"
        "from trainc.checks.created.images import COMPILE_IMAGE_TAG\n"
        "from trainc.diagnostics import finding\n"
        "made = finding(COMPILE_IMAGE_TAG.code, 'latest', file='job.yaml')\n"
        "assert made.severity is COMPILE_IMAGE_TAG.severity, made\n"
        "assert 'trainc.rulebook' not in sys.modules\n"
        "assert 'trainc.checks.apply_limits' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_trainc_yaml_may_name_every_declared_rule_without_its_module_imported() -> None:
    """trainc.yaml's ``rules:`` and suppressions are checked against the whole catalogue,
    including the rules of modules a run imports only when it needs them."""
    script = (
        "import sys\n"
        "from trainc.config.judgement import is_rule_code\n"
        "assert 'trainc.checks.apply_limits' not in sys.modules\n"
        "assert 'trainc.load.template' not in sys.modules\n"
        "assert is_rule_code('apply.object-too-large')\n"
        "assert is_rule_code('load.template-syntax')\n"
        "assert not is_rule_code('apply.object-too-big')\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)
    assert all(is_rule_code(rule.code.replace("*", "x")) for rule in declared_rules())
