"""What every ``trainc diff`` format says alike: headings, the fix for a refused update,
and the counts of the closing summary."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trainc.diff.changes import SHARED, Change, ObjectChange

#: What a change the API server refuses to apply in place needs.
FIX = "needs a new TrainJob name"


def heading(owner: str) -> str:
    """``TrainJob ml/llama``, or what the objects of no one job are."""
    return f"TrainJob {owner}" if owner != SHARED else SHARED_HEADING


#: The heading of the objects of no one TrainJob.
SHARED_HEADING = "Shared objects (the sweeper)"


def plural(count: int, noun: str) -> str:
    """``1 object``, ``2 objects``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


@dataclass(frozen=True, slots=True)
class DiffSummary:
    """How many objects an edit adds, changes and removes, of how many TrainJobs."""

    trainjobs: int
    added: int
    changed: int
    removed: int
    refused: int

    @classmethod
    def of(cls, changes: Sequence[ObjectChange]) -> DiffSummary:
        """Count ``changes``."""
        kinds = [change.change for change in changes]
        return cls(
            trainjobs=len({change.owner for change in changes if change.owner != SHARED}),
            added=kinds.count(Change.ADDED),
            changed=kinds.count(Change.CHANGED),
            removed=kinds.count(Change.REMOVED),
            refused=sum(1 for change in changes if change.refusals),
        )

    @property
    def objects(self) -> int:
        """Every object the edit touches."""
        return self.added + self.changed + self.removed

    def sentence(self, base: str) -> str:
        """One line for the end of a report."""
        if not self.objects:
            return f"No changes to the cluster against {base}."
        counts = f"{self.added} added, {self.changed} changed, {self.removed} removed"
        needs = "needs" if self.refused == 1 else "need"
        refused = (
            f"; {plural(self.refused, 'JobSet')} {needs} a new TrainJob name"
            if self.refused
            else ""
        )
        verb = "differs" if self.objects == 1 else "differ"
        jobs = f" of {plural(self.trainjobs, 'TrainJob')}" if self.trainjobs else ""
        ending = refused if self.refused else ""
        return f"{plural(self.objects, 'object')}{jobs} {verb} from {base}: {counts}{ending}."
