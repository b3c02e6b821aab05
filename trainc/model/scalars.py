"""Scalar aliases with their OpenAPI formats, as Go's int32/int64/metav1.Time map to them."""

from __future__ import annotations

from typing import Annotated, TypeAlias

from trainc.model.markers import Format

Int32: TypeAlias = Annotated[int, Format("int32")]
Int64: TypeAlias = Annotated[int, Format("int64")]
Time: TypeAlias = Annotated[str, Format("date-time")]
