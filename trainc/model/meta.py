"""Object metadata as templates embed it: the part of ObjectMeta a template may set."""

from __future__ import annotations

from trainc.records import dataclass


@dataclass(frozen=True, slots=True, kw_only=True)
class EmbeddedObjectMeta:
    """Metadata of an object created from a template.

    The API server keeps only these fields of an embedded ObjectMeta; everything else
    (uid, resourceVersion, ...) belongs to the object once it exists.
    """

    labels: dict[str, str] | None = None
    """Labels copied onto the object created from the template."""

    annotations: dict[str, str] | None = None
    """Annotations copied onto the object created from the template."""

    name: str | None = None
    """Ignored in Job and pod templates; a volumeClaimPolicies template names its claim with it."""

    namespace: str | None = None
    """Ignored by the controllers, which create objects in the owner's namespace."""

    finalizers: list[str] | None = None
    """Finalizers set on the created object."""
