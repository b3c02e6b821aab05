"""``trainc sweep``: one pass of deadlines, TTLs and garbage collection over the cluster,
record by record (:func:`trainc.sweep.sweep_pass.sweep`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from trainc.sweep.client import SweepClient
from trainc.sweep.sweep_pass import ActionRecord, Outcome, sweep
from trainc.sweep.times import format_time


@dataclass(frozen=True, slots=True)
class SweepRequest:
    """What each pass is asked to do: which namespaces (or every one), whether to change
    nothing (``dry_run``), and how long an object may wait for its JobSet (``grace``)."""

    namespaces: tuple[str, ...]
    all_namespaces: bool
    dry_run: bool
    grace: timedelta


class Sweeper:
    """The sweeps of one connected client; the clock is read once per pass, when it starts."""

    def __init__(self, client: SweepClient, request: SweepRequest) -> None:
        self._client = client
        self._request = request

    def start_pass(self) -> SweepPass:
        """A pass at the current time."""
        return SweepPass(self._client, self._request, datetime.now(UTC))


class SweepPass:
    """One pass at ``now``: iterate it for its records, as each action is carried out
    (stop early to interrupt it), then read its :meth:`summary`."""

    def __init__(self, client: SweepClient, request: SweepRequest, now: datetime) -> None:
        self._client = client
        self._request = request
        self._now = now
        self._outcomes: Counter[str] = Counter({str(outcome): 0 for outcome in Outcome})
        self._actions: Counter[str] = Counter()

    def __iter__(self) -> Iterator[ActionRecord]:
        request = self._request
        records = sweep(
            self._client,
            namespaces=request.namespaces,
            all_namespaces=request.all_namespaces,
            now=self._now,
            dry_run=request.dry_run,
            grace=request.grace,
        )
        for record in records:
            self._outcomes[str(record.outcome)] += 1
            self._actions[record.action] += 1
            yield record

    @property
    def failed(self) -> bool:
        """Whether an action of the pass failed."""
        return self._outcomes[Outcome.FAILED] > 0

    def summary(self, *, interrupted: bool) -> dict[str, object]:
        """What the pass did: its time, outcomes and actions counted, the API calls made."""
        return {
            "timestamp": format_time(self._now),
            "dryRun": self._request.dry_run,
            "outcomes": dict(sorted(self._outcomes.items())),
            "actions": dict(sorted(self._actions.items())),
            "calls": self._client.calls,
            "interrupted": interrupted,
        }
