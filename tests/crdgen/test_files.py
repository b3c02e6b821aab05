from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from ruamel.yaml import YAML

from trainc.crdgen.files import check_schemas, render_schemas, write_schemas
from trainc.model.json import JsonObject
from trainc.model.kinds import INPUT_KINDS, TRAINJOB
from trainc.model.schemafiles import SCHEMA_TARGETS, crd_path
from trainc.resources import source_data_dir


def test_repository_schemas_are_fresh() -> None:
    """The committed schemas/ is what the model generates; run `trainc schemas` if not."""
    assert check_schemas(source_data_dir("schemas")) == []


def test_one_crd_per_kind_and_one_json_schema_per_target(rendered: dict[str, bytes]) -> None:
    assert sorted(rendered) == sorted(
        [crd_path(info) for info in INPUT_KINDS] + [target.path for target in SCHEMA_TARGETS]
    )
    assert "jsonschema/trainer.kubeflow.org/trainjob_v1alpha1.json" in rendered
    assert "crds/trainer.kubeflow.org_trainjobs.yaml" in rendered


def test_output_is_identical_in_a_fresh_interpreter_with_another_hash_seed(
    rendered: dict[str, bytes],
) -> None:
    script = (
        "import hashlib, json\n"
        "from trainc.crdgen.files import render_schemas\n"
        "files = render_schemas()\n"
        "print(json.dumps({k: hashlib.sha256(v).hexdigest() for k, v in files.items()}))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "4242"}
    result = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    here = {path: hashlib.sha256(content).hexdigest() for path, content in rendered.items()}
    assert json.loads(result.stdout) == here


def test_json_files_are_sorted_two_space_utf8_with_a_final_newline(
    rendered: dict[str, bytes],
) -> None:
    for path, content in rendered.items():
        if path.endswith(".json"):
            text = content.decode("utf-8")
            document = json.loads(text)
            assert text == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_crd_yaml_parses_back_to_the_generated_object(
    rendered: dict[str, bytes], crds: dict[str, JsonObject]
) -> None:
    text = rendered[crd_path(TRAINJOB)].decode("utf-8")
    assert text.startswith("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n")
    assert text.endswith("\n")
    assert "\r" not in text
    # kubectl parses YAML 1.1, where unquoted `on` or `0755` would change type.
    yaml_1_1 = YAML(typ="safe", pure=False)
    yaml_1_1.version = (1, 1)
    assert yaml_1_1.load(text) == crds["TrainJob"]


def test_check_reports_missing_stale_and_extra_files(tmp_path: Path) -> None:
    write_schemas(tmp_path)
    assert check_schemas(tmp_path) == []

    crd = tmp_path / crd_path(TRAINJOB)
    crd.write_text(crd.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    (tmp_path / SCHEMA_TARGETS[-1].path).unlink()
    (tmp_path / "jsonschema" / "old_v1.json").write_text("{}", encoding="utf-8")
    (tmp_path / "README.md").write_text("not generated", encoding="utf-8")

    assert check_schemas(tmp_path) == [
        "stale: crds/trainer.kubeflow.org_trainjobs.yaml",
        "extra: jsonschema/old_v1.json",
        "missing: jsonschema/trainc.dev/validationpolicy_v1alpha1.json",
    ]


def test_write_repairs_exactly_what_check_reported(tmp_path: Path) -> None:
    assert len(write_schemas(tmp_path)) == len(render_schemas())
    (tmp_path / crd_path(TRAINJOB)).write_text("stale", encoding="utf-8")
    (tmp_path / "crds" / "extra.yaml").write_text("x", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("kept", encoding="utf-8")
    expected = check_schemas(tmp_path)

    assert write_schemas(tmp_path) == expected
    assert check_schemas(tmp_path) == []
    assert not (tmp_path / "crds" / "extra.yaml").exists()
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "kept"


def test_unchanged_files_are_not_rewritten(tmp_path: Path) -> None:
    write_schemas(tmp_path)
    crd = tmp_path / crd_path(TRAINJOB)
    os.utime(crd, ns=(1_000_000_000, 1_000_000_000))
    assert write_schemas(tmp_path) == []
    assert crd.stat().st_mtime_ns == 1_000_000_000
