"""LimitRanger's three constraints, each worded as the API server words its refusal.

``minConstraint``, ``maxConstraint``, ``maxRequestConstraint`` and
``limitRequestRatioConstraint`` in
https://github.com/kubernetes/kubernetes/blob/v1.36.0/plugin/pkg/admission/limitranger/admission.go.
They compare whole thousandths (``MilliValue``, rounded up) unless one of the three
amounts is too large for that (above ``MaxMilliValue``), then whole units (``Value``); a
missing amount counts as zero. The ratio is computed and printed in float64 (``%f``, six
decimals: ``4.000000``), as Go does. Each function returns the refusal, or None.

A later version of upstream's plugin replaces both with exact decimal arithmetic
(``Quantity.Cmp``, and the ratio rounded half-even to six decimals). Since every amount
the API server stores is already rounded to a thousandth, the two readings give the same
verdicts and texts, except for amounts above ``MaxMilliValue`` (9.2e15) and ratios whose
seventh decimal is a rounding tie. trainc keeps the thousandths-and-float64 reading; the
release that switches is not pinned here.
"""

from __future__ import annotations

from decimal import ROUND_UP

from trainc.checks.admission.resource_lists import ZERO, ResourceList
from trainc.checks.workload.quantities import Amount
from trainc.resolve.quantity import quantity_value

#: ``resource.MaxMilliValue``: the largest amount whose thousandths fit in an int64.
MAX_MILLI_VALUE = (2**63 - 1) // 1000


def _milli(amount: Amount) -> int:
    return int((amount.value * 1000).to_integral_value(rounding=ROUND_UP))


def _comparable(*amounts: Amount) -> list[int]:
    """``requestLimitEnforcedValues``: thousandths when all fit, else whole units."""
    values = [quantity_value(amount.value) for amount in amounts]
    if all(value <= MAX_MILLI_VALUE for value in values):
        return [_milli(amount) for amount in amounts]
    return values


def minimum(
    kind: str, name: str, enforced: Amount, requests: ResourceList, limits: ResourceList
) -> str | None:
    """A ``min``: the request must be there and reach it, and so must a limit if set."""
    request, limit = requests.get(name), limits.get(name)
    got_request, got_limit, wanted = _comparable(request or ZERO, limit or ZERO, enforced)
    if request is None:
        return f"minimum {name} usage per {kind} is {enforced}.  No request is specified"
    if got_request < wanted:
        return f"minimum {name} usage per {kind} is {enforced}, but request is {request}"
    if limit is not None and got_limit < wanted:
        return f"minimum {name} usage per {kind} is {enforced}, but limit is {limit}"
    return None


def maximum(
    kind: str, name: str, enforced: Amount, requests: ResourceList, limits: ResourceList
) -> str | None:
    """A ``max``: the limit must be there and stay under it, and so must the request."""
    request, limit = requests.get(name), limits.get(name)
    got_request, got_limit, wanted = _comparable(request or ZERO, limit or ZERO, enforced)
    if limit is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No limit is specified"
    if got_limit > wanted:
        return f"maximum {name} usage per {kind} is {enforced}, but limit is {limit}"
    if request is not None and got_request > wanted:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {request}"
    return None


def maximum_request(kind: str, name: str, enforced: Amount, requests: ResourceList) -> str | None:
    """A ``max`` on what is only requested (a claim's storage): no limit is read."""
    request = requests.get(name)
    got_request, _, wanted = _comparable(request or ZERO, ZERO, enforced)
    if request is None:
        return f"maximum {name} usage per {kind} is {enforced}.  No request is specified"
    if got_request > wanted:
        return f"maximum {name} usage per {kind} is {enforced}, but request is {request}"
    return None


def ratio(
    kind: str, name: str, enforced: Amount, requests: ResourceList, limits: ResourceList
) -> str | None:
    """A ``maxLimitRequestRatio``: both must be set and non-zero, limit/request at most it."""
    request, limit = requests.get(name), limits.get(name)
    got_request, got_limit, _ = _comparable(request or ZERO, limit or ZERO, enforced)
    head = f"{name} max limit to request ratio per {kind} is {enforced}"
    if request is None or got_request == 0:
        return f"{head}, but no request is specified or request is 0"
    if limit is None or got_limit == 0:
        return f"{head}, but no limit is specified or limit is 0"
    observed = float(got_limit) / float(got_request)
    shown = observed
    allowed = float(quantity_value(enforced.value))
    if quantity_value(enforced.value) <= MAX_MILLI_VALUE:
        observed *= 1000
        allowed = float(_milli(enforced))
    if observed > allowed:
        return f"{head}, but provided ratio is {shown:f}"
    return None
