"""Helpers for loader tests: writing repository files and a config rooted at them."""

from __future__ import annotations

from pathlib import Path

from trainc.config.limits import InputLimits
from trainc.config.settings import RepoConfig
from trainc.model.json import JsonObject

TRAINJOB = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {name}
  namespace: team
spec:
  runtimeRef:
    name: torch
"""


def write(root: Path, path: str, content: str | bytes) -> Path:
    """Create ``root/path`` (and its directories) with the given text or bytes."""
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        file.write_bytes(content)
    else:
        file.write_text(content, encoding="utf-8")
    return file


def config(
    root: Path,
    *,
    include: tuple[str, ...] | None = None,
    exclude: tuple[str, ...] = (),
    values: JsonObject | None = None,
    limits: InputLimits | None = None,
) -> RepoConfig:
    """A RepoConfig for a test repository (defaults as in trainc.yaml)."""
    base = RepoConfig(root=root)
    return RepoConfig(
        root=root,
        include=include or base.include,
        exclude=exclude,
        template_values=values or {},
        limits=limits or InputLimits(),
    )
