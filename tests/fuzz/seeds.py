"""The valid repositories mutations start from: the case corpus's valid cases and examples/.

A seed is a whole small repository (runtimes, TrainJobs, a trainc.yaml, policies,
templates), each file kept both as text and, when trainc's own loader reads it cleanly,
as the data of its documents, which the tree mutations edit. Many cases hold a runtime
alone; a seed gets a TrainJob on each runtime of such a case, and a trainc.yaml naming
the Secrets MPI and Flux jobs mount, so that compile builds every seed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from trainc.config.limits import InputLimits
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.json import JsonValue

REPO_ROOT = Path(__file__).resolve().parents[2]
CASES = REPO_ROOT / "tests" / "cases"
EXAMPLES = REPO_ROOT / "examples"

#: Not inputs of a case: its expectations and the git revision it is compared with.
_CASE_EXTRAS = ("expect.yaml", "base")
#: Not inputs of the example repository: compile's output and other tools' workflows.
_EXAMPLE_EXTRAS = ("rendered", "ci")


@dataclass(frozen=True, slots=True)
class SeedFile:
    """One file of a seed; ``documents`` is None when it is a template or not plain YAML."""

    text: str
    documents: tuple[JsonValue, ...] | None


@dataclass(frozen=True, slots=True)
class Seed:
    """A repository that validates without errors, by path relative to its root."""

    name: str
    files: dict[str, SeedFile]


def _read_tree(root: Path, skip: tuple[str, ...]) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.relative_to(root).parts[0] not in skip
    }


def _seed_file(path: str, text: str) -> SeedFile:
    if path.endswith(".j2"):
        return SeedFile(text, None)
    parsed = parse_documents(SourceFile(path=path, text=text), InputLimits())
    if parsed.diagnostics:
        return SeedFile(text, None)
    return SeedFile(text, tuple(document.data for document in parsed.documents))


_TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: job-{index}
  namespace: {namespace}
spec:
  runtimeRef:
    name: {name}
    kind: {kind}
"""
_RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")


def _trainjobs(files: dict[str, SeedFile]) -> str | None:
    """A TrainJob on each runtime of ``files``, unless they hold a TrainJob already."""
    documents = [
        document
        for file in files.values()
        for document in file.documents or ()
        if isinstance(document, dict)
    ]
    if any(document.get("kind") == "TrainJob" for document in documents):
        return None
    jobs: list[str] = []
    for document in documents:
        metadata = document.get("metadata")
        if document.get("kind") in _RUNTIME_KINDS and isinstance(metadata, dict):
            jobs.append(
                _TRAINJOB.format(
                    index=len(jobs),
                    namespace=metadata.get("namespace") or "default",
                    name=metadata.get("name"),
                    kind=document.get("kind"),
                )
            )
    return "---\n".join(jobs) or None


_CONFIG = "apiVersion: trainc.dev/v1alpha1\nkind: Config\n"
_SECRETS = "compile:\n  mpi: {sshAuthSecret: fuzz-ssh}\n  flux: {curveSecret: fuzz-curve}\n"


def _seed(name: str, texts: dict[str, str]) -> Seed:
    config = texts.get("trainc.yaml", _CONFIG)
    if "\ncompile:" not in "\n" + config:  # a case may open with its compile section
        texts["trainc.yaml"] = config + _SECRETS
    files = {path: _seed_file(path, text) for path, text in sorted(texts.items())}
    jobs = _trainjobs(files)
    if jobs is not None:
        files["fuzz-trainjobs.yaml"] = _seed_file("fuzz-trainjobs.yaml", jobs)
    return Seed(name, files)


def validate_only(case: Path) -> bool:
    """Whether the case directory's trainc.yaml says ``deploy: TrainJob``: trainc compiles
    nothing there (``trainc compile`` exits 2)."""
    config = case / "trainc.yaml"
    return config.is_file() and "\ndeploy: TrainJob" in "\n" + config.read_text("utf-8")


def valid_only_as_update(case: Path) -> bool:
    """Whether the case has a ``base/`` revision and judges the cluster's admission: the
    API server judges an update by what it changes (a quota charges only its growth, a
    policy may read ``oldObject``), so such a case may be valid as the update of its base
    and not as the same objects created anew, which is what a seed is (no ``--base``)."""
    configs = (case / "trainc.yaml", case / "base" / "trainc.yaml")
    return (case / "base").is_dir() and any(
        config.is_file() and "\ncluster:" in "\n" + config.read_text("utf-8") for config in configs
    )


@functools.cache
def seeds() -> tuple[Seed, ...]:
    """Every valid case (its ``base/`` revision overlaid by its own files) that compiles
    and is valid without its base, and examples/."""
    found = []
    for case in sorted(CASES.glob("*/valid/*")):
        if validate_only(case) or valid_only_as_update(case):
            continue
        texts = _read_tree(case / "base", ()) if (case / "base").is_dir() else {}
        texts.update(_read_tree(case, _CASE_EXTRAS))
        found.append(_seed(case.relative_to(CASES).as_posix(), texts))
    found.append(_seed("examples", _read_tree(EXAMPLES, _EXAMPLE_EXTRAS)))
    return tuple(found)
