"""Taking the TrainJobs done for good out of the working tree, one edit per file.

Reading the cluster is the caller's (one list of JobSets per namespace, nothing
written); judging is :func:`trainc.prune.verdict.judge`'s; editing is
:mod:`trainc.prune.edit`'s. All documents a file loses go in one edit, and a file whose
edit is unsafe keeps all of them, each TrainJob saying why.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from trainc.config.limits import InputLimits
from trainc.emit.replace import ChangedMeanwhile
from trainc.model.json import JsonObject
from trainc.prune.edit import Edit, UnsafeEditError, apply_edit, without_documents
from trainc.prune.verdict import Judgement, judge
from trainc.sweep.model import JobSetState


@dataclass(frozen=True, slots=True)
class TrainJobSource:
    """Where git holds one TrainJob: its identity in the cluster, its file, and the
    document as read, to find it again in that file."""

    namespace: str
    name: str
    file: str
    document: JsonObject


class Outcome(enum.StrEnum):
    """What ``trainc prune`` did with one TrainJob."""

    REMOVED = "removed"
    WOULD_REMOVE = "would remove"
    KEPT = "kept"
    UNSAFE = "left in place"


@dataclass(frozen=True, slots=True)
class Pruned:
    """One TrainJob, its verdict, and what became of its document."""

    trainjob: TrainJobSource
    judgement: Judgement
    outcome: Outcome
    note: str = ""

    def line(self) -> str:
        """One line for the report: ``removed jobs/a.yaml: TrainJob ml/a: Completed at …``."""
        job = self.trainjob
        note = f" ({self.note})" if self.note else ""
        return (
            f"{self.outcome.value} {job.file}: TrainJob {job.namespace}/{job.name}: "
            f"{self.judgement.reason}{note}"
        )


def plan(
    trainjobs: Sequence[TrainJobSource], jobsets: Sequence[JobSetState], now: datetime
) -> list[tuple[TrainJobSource, Judgement]]:
    """Each TrainJob with the verdict on its JobSet (found by namespace and name)."""
    live = {(jobset.ref.namespace, jobset.ref.name): jobset for jobset in jobsets}
    return [(job, judge(live.get((job.namespace, job.name)), job.file, now)) for job in trainjobs]


def prune(
    judged: Sequence[tuple[TrainJobSource, Judgement]],
    *,
    root: Path,
    limits: InputLimits,
    dry_run: bool,
) -> list[Pruned]:
    """Take every expired TrainJob's document out of its file under ``root`` (nothing
    with ``dry_run``), one edit per file; the report in the order given."""
    by_file: dict[str, list[TrainJobSource]] = {}
    for job, judgement in judged:
        if judgement.verdict.removes:
            by_file.setdefault(job.file, []).append(job)
    refused: dict[str, str] = {}
    for file, jobs in sorted(by_file.items()):
        try:
            edit = _edit(root, file, jobs, limits)
        except UnsafeEditError as error:
            refused[file] = str(error)
            continue
        if not dry_run:
            try:
                apply_edit(root, edit)
            except ChangedMeanwhile:
                refused[file] = "the file changed while prune ran"
    done = Outcome.WOULD_REMOVE if dry_run else Outcome.REMOVED
    report = []
    for job, judgement in judged:
        if not judgement.verdict.removes:
            report.append(Pruned(job, judgement, Outcome.KEPT))
        elif job.file in refused:
            report.append(Pruned(job, judgement, Outcome.UNSAFE, refused[job.file]))
        else:
            report.append(Pruned(job, judgement, done))
    return report


def _edit(root: Path, file: str, jobs: Sequence[TrainJobSource], limits: InputLimits) -> Edit:
    try:
        text = (root / file).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise UnsafeEditError(f"cannot read it: {error}") from error
    return without_documents(file, text, [job.document for job in jobs], limits)


def summary(report: Sequence[Pruned], *, dry_run: bool) -> str:
    """The closing line: how many TrainJobs left git (or would), and how many stay."""
    gone = sum(1 for entry in report if entry.outcome in (Outcome.REMOVED, Outcome.WOULD_REMOVE))
    unsafe = sum(1 for entry in report if entry.outcome is Outcome.UNSAFE)
    verb = "would be removed" if dry_run else "removed"
    stays = len(report) - gone
    extra = f", {unsafe} of them expired but not safe to edit" if unsafe else ""
    return f"{gone} of {len(report)} TrainJobs {verb}; {stays} kept{extra}."
