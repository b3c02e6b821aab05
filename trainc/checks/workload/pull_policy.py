"""When the kubelet pulls an image: ``validatePullPolicy``, one rule for two fields.

A container's ``imagePullPolicy`` and an ``image`` volume's ``pullPolicy`` are the same
type, checked by the same upstream function; a typo (``IfNotPresnt``) in either makes the
API server refuse the pod. Both are judged after defaulting, which fills an unset policy
in from the image's tag (``Always`` for ``:latest``, else ``IfNotPresent``), so upstream's
``Required value`` for an empty one cannot occur.
"""

from __future__ import annotations

from trainc.checks.workload.fielderrors import FieldError, not_supported
from trainc.checks.workload.jsonfields import text
from trainc.model.json import FieldPath, JsonValue

#: ``supportedPullPolicies``, sorted as ``sets.List`` prints them.
_PULL_POLICIES = ("Always", "IfNotPresent", "Never")


def pull_policy_errors(policy: JsonValue, path: FieldPath, code: str) -> list[FieldError]:
    """A pull policy that is set must be one the kubelet knows; ``path`` is the field's."""
    value = text(policy)
    if not value or value in _PULL_POLICIES:
        return []
    return [not_supported(path, code, value, _PULL_POLICIES)]
