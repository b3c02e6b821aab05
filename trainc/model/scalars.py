"""Scalar aliases with their OpenAPI formats, as Go's int32/int64/metav1.Time map to them,
and the Kubernetes quantity string."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from trainc.model.markers import Format, K8s

Int32: TypeAlias = Annotated[int, Format("int32")]
Int64: TypeAlias = Annotated[int, Format("int64")]
Time: TypeAlias = Annotated[str, Format("date-time")]
Quantity: TypeAlias = Annotated[str, K8s("io.k8s.apimachinery.pkg.api.resource.Quantity")]

#: What a string of each OpenAPI string format is, for "must be ..." in messages.
FORMAT_NOUNS = {"date-time": "an RFC 3339 date-time such as 2025-06-01T12:00:00Z"}
