"""One fixed report that every format renders: all severities, a hint, a template, a
finding without a file, a file without a quotable source, and awkward characters."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest

from trainc.diagnostics import Diagnostic, Severity, sort_diagnostics
from trainc.load.source import SourceFile
from trainc.report.base import Reporter, ReportInput

TRAIN_YAML = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: llm
  namespace: team-a
spec:
  trainer:
    nmae: 3
    command: ["训练",\t"run"]
---
apiVersion: v1
kind: ConfigMap
"""

TEMPLATE = """\
{% set deadline = 0 %}
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: {{ name }}
spec:
  activeDeadlineSeconds: {{ deadline }}
"""

RENDERED = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  name: sweep
spec:
  activeDeadlineSeconds: 0
"""

SOURCES = {
    "jobs/train.yaml": SourceFile(path="jobs/train.yaml", text=TRAIN_YAML),
    "jobs/tpl.yaml.j2": SourceFile(
        path="jobs/tpl.yaml.j2", text=RENDERED, original=TEMPLATE, line_map=(2, 3, 4, 5, 6, 7)
    ),
}


def _diagnostics() -> tuple[Diagnostic, ...]:
    train = {"file": "jobs/train.yaml", "kind": "TrainJob", "namespace": "team-a", "name": "llm"}
    template = {"file": "jobs/tpl.yaml.j2", "kind": "TrainJob", "name": "sweep"}
    return sort_diagnostics(
        [
            Diagnostic(
                code="config.invalid",
                severity=Severity.ERROR,
                file=None,
                line=None,
                column=None,
                message='environment "prod" is not defined',
                hint="defined environments: dev, staging",
            ),
            Diagnostic(
                code="schema.unknown-field",
                severity=Severity.ERROR,
                line=8,
                column=5,
                message='unknown field "nmae"',
                field_path="spec.trainer.nmae",
                hint='did you mean "numNodes"?',
                **train,
            ),
            Diagnostic(
                code="schema.enum",
                severity=Severity.ERROR,
                line=9,
                column=21,
                message='"run" is not one of "python", "torchrun"',
                field_path="spec.trainer.command[1]",
                **train,
            ),
            Diagnostic(
                code="load.ignored-document",
                severity=Severity.INFO,
                file="jobs/train.yaml",
                line=11,
                column=1,
                message="ConfigMap is not a Trainer object; skipped",
            ),
            Diagnostic(
                code="cel.trainjob.deadline-min",
                severity=Severity.ERROR,
                line=7,
                column=3,
                message="activeDeadlineSeconds must be ≥ 1",
                field_path="spec.activeDeadlineSeconds",
                **template,
            ),
            Diagnostic(
                code="policy.gpu-limit",
                severity=Severity.WARNING,
                line=5,
                column=9,
                message='GPU 100%: "a,b" <8> & — ünï ✓\nline 2',
                **template,
            ),
            Diagnostic(
                code="xobj.ttl-short",
                severity=Severity.WARNING,
                file="runtimes/torch.yaml",
                line=6,
                column=3,
                kind="ClusterTrainingRuntime",
                name="torch-distributed",
                field_path="spec.ttlSecondsAfterFinished",
                message="ttlSecondsAfterFinished is 30 seconds, under 60",
            ),
        ]
    )


@pytest.fixture
def sample() -> ReportInput:
    """The fixed report: 4 errors, 2 warnings, 1 info, over 3 files and 4 objects."""
    return ReportInput(
        diagnostics=_diagnostics(),
        sources=SOURCES,
        files_checked=3,
        objects_checked=4,
        version="9.9.9",
    )


@pytest.fixture
def clean() -> ReportInput:
    """A report without findings, over the same files."""
    return ReportInput(
        diagnostics=(), sources=SOURCES, files_checked=3, objects_checked=4, version="9.9.9"
    )


@pytest.fixture
def render() -> Callable[[Reporter, ReportInput], str]:
    """Run a reporter into memory and return what it wrote."""

    def _render(reporter: Reporter, report: ReportInput) -> str:
        stream = io.StringIO()
        reporter.write(report, stream)
        return stream.getvalue()

    return _render
