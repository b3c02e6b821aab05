from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trainc.config.limits import InputLimits
from trainc.errors import UsageError
from trainc.load import discover, inputs
from trainc.load.discover import Discovery
from trainc.load.inputs import LoadResult, load_base, load_inputs, load_single_file

from .files import TRAINJOB, config, write
from .test_convert import BILLION_LAUGHS

TEMPLATE = """\
{% for team in teams %}
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job-{{ team }}
  namespace: {{ team }}
spec:
  runtimeRef:
    name: {{ values.runtime }}
{% endfor %}
"""


def codes(result: LoadResult) -> list[tuple[str, str | None, int | None]]:
    return [(d.code, d.file, d.line) for d in result.diagnostics]


def test_objects_sources_and_findings(tmp_path: Path) -> None:
    write(tmp_path, "b.yaml", TRAINJOB.format(name="b1") + "---\n" + TRAINJOB.format(name="b2"))
    write(
        tmp_path,
        "a/list.yaml",
        "apiVersion: v1\nkind: List\nitems:\n"
        + "".join(
            "- " + TRAINJOB.format(name=n).rstrip("\n").replace("\n", "\n  ") + "\n"
            for n in ("zeta", "eta")
        ),
    )
    write(tmp_path, "c.yml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\n")
    write(tmp_path, "d.yaml", "a: [\n")
    result = load_inputs([tmp_path], config=config(tmp_path))
    assert [(o.path, o.name) for o in result.objects] == [
        ("a/list.yaml", "zeta"),
        ("a/list.yaml", "eta"),
        ("b.yaml", "b1"),
        ("b.yaml", "b2"),
    ]
    assert list(result.sources) == ["a/list.yaml", "b.yaml", "c.yml", "d.yaml"]
    assert codes(result) == [("load.ignored-document", "c.yml", 1), ("load.syntax", "d.yaml", 2)]
    assert result.files == 4


def test_key_findings_in_skipped_documents_are_dropped(tmp_path: Path) -> None:
    write(tmp_path, "openapi.yaml", "paths:\n  /x:\n    get:\n      responses:\n        200: ok\n")
    write(
        tmp_path,
        "job.yaml",
        TRAINJOB.format(name="a") + "  labels: {a: 1, a: 2}\n" + "---\nkind: Other\nx: 1\nx: 2\n",
    )
    result = load_inputs([tmp_path], config=config(tmp_path))
    assert codes(result) == [
        ("load.duplicate-key", "job.yaml", 9),
        ("load.ignored-document", "job.yaml", 11),
        ("load.ignored-document", "openapi.yaml", 1),
    ]


def test_template_objects_locate_into_the_template(tmp_path: Path) -> None:
    write(tmp_path, "jobs.yaml.j2", TEMPLATE)
    result = load_inputs(
        [tmp_path], config=config(tmp_path, values={"teams": ["x", "z"], "runtime": "torch"})
    )
    assert result.diagnostics == ()
    assert [(o.name, o.namespace) for o in result.objects] == [("job-x", "x"), ("job-z", "z")]
    second = result.objects[1]
    assert second.document.locate(("metadata", "namespace")).line == 7
    assert second.document.locate(("spec", "runtimeRef", "name")).line == 10
    source = result.sources["jobs.yaml.j2"]
    assert source.original == TEMPLATE
    assert source.quote(10) == "    name: {{ values.runtime }}"


def test_yaml_error_on_a_loop_generated_line_points_at_the_template(tmp_path: Path) -> None:
    # The value breaks the YAML only in the second iteration, first on template line 6.
    write(tmp_path, "jobs.yaml.j2", TEMPLATE)
    result = load_inputs(
        [tmp_path],
        config=config(tmp_path, values={"teams": ["ok", "a: b"], "runtime": "torch"}),
    )
    assert codes(result) == [("load.syntax", "jobs.yaml.j2", 6)]
    assert [o.name for o in result.objects] == ["job-ok"]


def test_template_failures_keep_the_template_for_quoting(tmp_path: Path) -> None:
    write(tmp_path, "bad.yaml.j2", "a: 1\nb: {{ nope }}\n")
    result = load_inputs([tmp_path], config=config(tmp_path))
    assert codes(result) == [("load.template-undefined", "bad.yaml.j2", 2)]
    assert result.sources["bad.yaml.j2"].quote(2) == "b: {{ nope }}"


def test_hostile_repository_gives_each_file_its_error_and_goes_on(tmp_path: Path) -> None:
    write(tmp_path, "ok.yaml", TRAINJOB.format(name="ok"))
    write(tmp_path, "bomb.yaml", BILLION_LAUGHS)
    write(tmp_path, "binary.yaml", b"\x00\x01\x02")
    write(tmp_path, "latin1.yaml", b"a: 1\nb: caf\xe9\n")
    write(tmp_path, "tabs.yaml", "a:\n\tb: 1\n")
    write(tmp_path, "deep.yaml", "[" * 400 + "]" * 400)
    write(
        tmp_path,
        "dup.yaml",
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\n"
        "kind: TrainJob\nmetadata: {name: d}\n",
    )
    write(tmp_path, "big.yaml", b"#" * 2000)
    write(tmp_path, "escape.yaml.j2", "x: {{ ''.__class__.__mro__[1].__subclasses__() }}\n")
    (tmp_path / "passwd.yaml").symlink_to("/etc/passwd")
    result = load_inputs(
        [tmp_path], config=config(tmp_path, limits=InputLimits(max_file_bytes=1000))
    )
    assert [(d.code, d.file, d.line) for d in result.diagnostics if d.is_error] == [
        ("load.too-large", "big.yaml", None),
        ("load.binary", "binary.yaml", None),
        ("load.alias-bound", "bomb.yaml", 7),
        ("load.too-deep", "deep.yaml", 1),
        ("load.duplicate-key", "dup.yaml", 3),
        ("load.template-security", "escape.yaml.j2", 1),
        ("load.encoding", "latin1.yaml", 2),
        ("load.symlink-escape", "passwd.yaml", None),
        ("load.tab-indent", "tabs.yaml", 2),
    ]
    assert [o.name for o in result.objects] == ["d", "ok"]


def test_file_deleted_between_discovery_and_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "a.yaml", TRAINJOB.format(name="a"))
    write(tmp_path, "gone.yaml", TRAINJOB.format(name="gone"))
    real_discover = discover.discover_files

    def discover_then_delete(*args: object, **kwargs: object) -> Discovery:
        found = real_discover(*args, **kwargs)  # type: ignore[arg-type]  # passed through
        (tmp_path / "gone.yaml").unlink()
        return found

    monkeypatch.setattr(inputs, "discover_files", discover_then_delete)
    result = load_inputs([tmp_path], config=config(tmp_path))
    assert [o.name for o in result.objects] == ["a"]
    assert codes(result) == [("load.unreadable", "gone.yaml", None)]
    assert result.files == 2


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        load_inputs([tmp_path / "nope"], config=config(tmp_path))


def test_jinja2_is_imported_only_for_templates(tmp_path: Path) -> None:
    write(tmp_path, "a.yaml", TRAINJOB.format(name="a"))
    script = (
        "import sys; from pathlib import Path; from trainc.config.settings import RepoConfig;"
        "from trainc.load.inputs import load_inputs;"
        f"root = Path({str(tmp_path)!r}); r = load_inputs([root], config=RepoConfig(root=root));"
        "assert len(r.objects) == 1; print('jinja2' in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True)
    assert completed.stdout == b"False\n"


def test_load_base_goes_through_the_same_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    write(tmp_path, "jobs.yaml.j2", TEMPLATE)
    write(tmp_path, "broken.yaml", "a: [\n")

    def git(*args: str) -> None:
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
            cwd=tmp_path,
            check=True,
            capture_output=True,
        )

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    write(tmp_path, "jobs.yaml.j2", "")
    settings = config(tmp_path, values={"teams": ["x"], "runtime": "torch"})
    assert load_inputs([tmp_path], config=settings).objects == ()
    base = load_base("HEAD", config=settings)
    assert [o.name for o in base.objects] == ["job-x"]
    assert base.objects[0].document.locate(("spec", "runtimeRef", "name")).line == 10
    assert codes(base) == [("load.syntax", "broken.yaml", 2)]
    assert base.files == 2
    assert base.sources["jobs.yaml.j2"].original == TEMPLATE


def test_load_single_file(tmp_path: Path) -> None:
    file = write(tmp_path, "trainc.yaml", "namespace: team\n")
    loaded = load_single_file(file, "trainc.yaml")
    assert loaded.source is not None
    assert [d.data for d in loaded.documents] == [{"namespace": "team"}]
    assert loaded.diagnostics == ()
    missing = load_single_file(tmp_path / "nope.yaml", "nope.yaml")
    assert (missing.source, [d.code for d in missing.diagnostics]) == (None, ["load.unreadable"])
