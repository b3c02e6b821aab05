"""Counted, bounded, retried API calls: the sweeper's budgets and its retry policy.

Independent of the ``kubernetes`` package: :mod:`trainc.sweep.client` hands over each
attempt as a function returning an :class:`Answer`. Every attempt counts against a call
budget and a time budget, so a pass over any cluster ends. 5xx, 429, timeouts and
connection errors are retried with a deterministic doubling backoff (no jitter: a CronJob
run is a single client, nothing to de-synchronise), then raised as :class:`ApiError`.
404 and 409 are never retried here: on a write 404 means "already gone", and 409 means
the object changed, so the caller reads it fresh and decides again, as the TTL-after-finished
controller does before it deletes (KEP-592,
https://github.com/kubernetes/kubernetes/blob/master/pkg/controller/ttlafterfinished/ttlafterfinished_controller.go).
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http import HTTPStatus

from trainc.model.json import JsonObject, get_path


@dataclass(frozen=True, slots=True, kw_only=True)
class SweepLimits:
    """Bounds of one sweep pass: page size, per-request timeout, retries, budgets (seconds).

    The call budget grows with the work a pass planned (:func:`call_budget`), so a TTL
    wave of any size finishes in one pass while a pass whose calls keep failing still
    stops. The time budget stays well inside the 600 s deadline of the CronJob's run
    (:mod:`trainc.build.sweeper`), so a slow pass still ends with its summary line.
    """

    page_size: int = 2000
    """Items per list page: 10,000 JobSets and their Jobs list in 10 pages, so a pass's
    lists stay within ``base_calls``. 2,000 live JobSets of 7 KB (managedFields included)
    are 15 MB of JSON and about 100 MB while parsed, one page at a time: inside the
    sweeper container's memory limit (256Mi by default)."""
    request_timeout: float = 30.0
    attempts: int = 4
    first_backoff: float = 0.5
    max_backoff: float = 8.0
    base_calls: int = 20
    """Calls a pass may make besides its planned actions' own: its lists, then retries."""
    max_calls: int = 100_000
    """The ceiling of the call budget, however many actions a pass planned; before the
    plan, the only bound of the lists' calls."""
    max_seconds: float = 480.0
    concurrency: int = 8
    """How many actions are carried out at once."""

    def backoff(self, attempt: int) -> float:
        """The wait after failed attempt ``attempt`` (0-based): doubling, capped, no jitter."""
        return min(self.max_backoff, self.first_backoff * 2.0**attempt)


def call_budget(limits: SweepLimits, *, listed: int, planned: int) -> int:
    """The calls a pass may make once it planned actions needing ``planned`` calls.

    ``listed`` calls were spent on the lists. The budget is ``base_calls`` (20) for the
    lists and retries, or what the lists took when they took more, plus what the actions
    need when nothing fails: a pass is never cut short by its own size, only by failures
    whose retries outgrow the spare calls, or by ``max_calls``.
    """
    return min(limits.max_calls, max(limits.base_calls, listed) + planned)


@dataclass(frozen=True, slots=True)
class Answer:
    """One attempt's HTTP answer; ``status`` None when none came (timeout, refused)."""

    status: int | None
    reason: str
    data: object = None


class ApiError(Exception):
    """A call failed for good; ``status`` is the HTTP code, None when no answer came."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class NotFound(ApiError):  # noqa: N818 - named after the API's reason
    """404: the object (or, on a list, the resource type) does not exist."""


class Conflict(ApiError):  # noqa: N818 - named after the API's reason
    """409: a precondition or resourceVersion no longer matches; read fresh, decide again."""


class BudgetExhausted(ApiError):  # noqa: N818 - reads as the condition it reports
    """The pass used up its call or time budget; nothing more is attempted."""


class Caller:
    """Makes calls within the budgets of the current pass; ``calls`` counts its attempts.

    Until :meth:`plan` sizes it for the actions a pass decided, the call budget is
    ``max_calls``. Actions run on several threads at once. So that which of them the call
    budget stops does not depend on thread timing, each action is given its share of the
    budget in the order the actions were decided (:meth:`share`), before any runs: a
    thread spends its own share first, then, for retries beyond it, what no share holds.
    Counting is under a lock, so no two threads spend the same call.
    """

    def __init__(
        self, limits: SweepLimits, *, sleep: Callable[[float], None], monotonic: Callable[[], float]
    ) -> None:
        self.limits = limits
        self._sleep = sleep
        self._monotonic = monotonic
        self.calls = 0
        self.budget = limits.max_calls
        self._started = monotonic()
        self._lock = threading.Lock()
        self._shared = 0
        self._local = threading.local()

    def start_pass(self) -> None:
        """Reset both budgets: each sweep pass gets its own."""
        self.calls = 0
        self.budget = self.limits.max_calls
        self._shared = 0
        self._started = self._monotonic()

    def plan(self, planned: int) -> None:
        """Size the call budget for actions needing ``planned`` calls (:func:`call_budget`)."""
        with self._lock:
            self.budget = call_budget(self.limits, listed=self.calls, planned=planned)

    def share(self, wanted: int) -> int:
        """Set aside up to ``wanted`` calls of the budget for one action; how many it got.

        Called in the order the actions were decided, so the budget runs out at the same
        action whatever the threads do.
        """
        with self._lock:
            granted = max(0, min(wanted, self.budget - self.calls - self._shared))
            self._shared += granted
        return granted

    @contextlib.contextmanager
    def spending(self, share: int) -> Iterator[None]:
        """Calls made inside the block, on this thread, come from ``share`` first."""
        self._local.left = share
        try:
            yield
        finally:
            with self._lock:
                self._shared -= self._local.left
            self._local.left = 0

    def call(self, what: str, attempt_once: Callable[[float], Answer]) -> JsonObject:
        """The JSON object of a successful answer, retrying what is worth retrying.

        ``attempt_once`` gets the request timeout, cut to the time left in the budget. A
        budget that runs out before a retry is reported with the failure it cut short.
        """
        timeout = self._spend()
        attempt = 0
        while True:
            answer = attempt_once(timeout)
            body = _json_object(answer.data)
            if answer.status is not None and _succeeded(answer.status):
                if body is None:
                    raise ApiError(f"{what}: the answer is not a JSON object", status=answer.status)
                return body
            detail = _describe(answer, body)
            if answer.status == HTTPStatus.NOT_FOUND:
                raise NotFound(f"{what}: {detail}", status=answer.status)
            if answer.status == HTTPStatus.CONFLICT:
                raise Conflict(f"{what}: {detail}", status=answer.status)
            if not _retryable(answer.status) or attempt + 1 >= self.limits.attempts:
                tries = f" (after {attempt + 1} attempts)" if attempt else ""
                raise ApiError(f"{what}: {detail}{tries}", status=answer.status)
            try:
                self.pause(attempt)
                timeout = self._spend()
            except BudgetExhausted as exhausted:
                cut = f"not retried after attempt {attempt + 1}: {exhausted}"
                raise BudgetExhausted(f"{what}: {detail} ({cut})", status=answer.status) from None
            attempt += 1

    def pause(self, attempt: int) -> None:
        """Wait the backoff after failed attempt ``attempt``, if the time budget allows it."""
        wait = self.limits.backoff(attempt)
        if self._elapsed() + wait > self.limits.max_seconds:
            raise BudgetExhausted(f"time budget of {self.limits.max_seconds:g}s used up")
        self._sleep(wait)

    def _spend(self) -> float:
        """Count one attempt against the budgets; its timeout, within the time left."""
        with self._lock:
            own = getattr(self._local, "left", 0)
            if not own and self.calls + self._shared >= self.budget:
                raise BudgetExhausted(f"call budget of {self.budget} calls used up")
            left = self.limits.max_seconds - self._elapsed()
            if left <= 0:
                raise BudgetExhausted(f"time budget of {self.limits.max_seconds:g}s used up")
            if own:
                self._local.left = own - 1
                self._shared -= 1
            self.calls += 1
        return min(self.limits.request_timeout, left)

    def _elapsed(self) -> float:
        return self._monotonic() - self._started


def _succeeded(status: int) -> bool:
    return HTTPStatus.OK <= status < HTTPStatus.MULTIPLE_CHOICES


def _retryable(status: int | None) -> bool:
    """No answer, throttling or a server error: worth another attempt."""
    return (
        status is None
        or status in (0, HTTPStatus.TOO_MANY_REQUESTS)
        or status >= HTTPStatus.INTERNAL_SERVER_ERROR
    )


def _json_object(data: object) -> JsonObject | None:
    """``data`` (bytes or text) parsed as a JSON object; None when it is not one."""
    try:
        value = json.loads(data) if isinstance(data, str | bytes) else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _describe(answer: Answer, body: JsonObject | None) -> str:
    """``HTTP 409 Conflict: <the Status message>``, or what stood in for an answer."""
    if answer.status is None:
        return f"no answer ({answer.reason})"
    text = f"HTTP {answer.status} {answer.reason}".rstrip()
    message = get_path(body or {}, ("message",))
    return f"{text}: {message}" if isinstance(message, str) and message else text
