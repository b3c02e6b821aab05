"""Whose a finding about a resolved TrainJob is: the TrainJob it concerns, named.

A finding about what a TrainJob becomes (its JobSet, the Jobs and pods the controllers
create) sits on the line of the value that causes it (:mod:`.locate`). That line is the
TrainJob's own when the TrainJob wrote the value (``resourcesPerNode``, a runtime
patch), and the finding's object fields name the TrainJob. It is the runtime's when the
runtime wrote it, and then nothing there says which TrainJob the cluster would refuse:
a runtime serves many TrainJobs, and only some may break (one without
``resourcesPerNode`` keeps the runtime's GPU request without a limit, one that sets
the limit is fine). Such a finding names its TrainJob at the start of its message
(:func:`name_trainjob`).

Reported once per TrainJob, a runtime's mistake would show up fifty times on one line
for fifty TrainJobs, identical but for the name. The line to change is the same for
all of them, so :func:`merge_shared` makes them one finding on that line that counts
the TrainJobs it breaks and names the first few (the JSON and SARIF reports get the
same text; a reader who needs every name has them in the TrainJobs' own runs).
Findings that sit on the TrainJob stay one per TrainJob: each is a different line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from trainc.diagnostics import Diagnostic, counted
from trainc.load.defaulted import DefaultedObject

#: How many TrainJobs a merged finding lists by name before it only counts the rest.
NAMED: Final = 3

_KIND: Final = "TrainJob"
#: The start :func:`name_trainjob` gives a message: ``TrainJob <namespace>/<name>: ``.
#: Namespaces and names are DNS names, without spaces, colons or slashes.
_NAMED_MESSAGE: Final = re.compile(r"TrainJob (?P<job>[^\s:/]+/[^\s:/]+): (?P<rest>.*)", re.DOTALL)


def trainjob_label(trainjob: DefaultedObject) -> str:
    """``<namespace>/<name>`` of a TrainJob, as kubectl names a namespaced object."""
    return f"{trainjob.namespace}/{trainjob.name}"


def on_object(finding: Diagnostic, obj: DefaultedObject) -> bool:
    """Whether ``finding`` sits on ``obj`` (its file, kind and name)."""
    return finding.file == obj.loaded.path and finding.kind == obj.kind and finding.name == obj.name


def name_trainjob(trainjob: DefaultedObject, findings: Iterable[Diagnostic]) -> list[Diagnostic]:
    """``findings`` about what ``trainjob`` becomes, each naming it: a finding placed on
    another object (its runtime) gets ``TrainJob <namespace>/<name>: `` before its
    message; one on the TrainJob names it in its object fields already."""
    prefix = f"{_KIND} {trainjob_label(trainjob)}: "
    return [
        found
        if on_object(found, trainjob) or found.message.startswith(prefix)
        else replace(found, message=prefix + found.message)
        for found in findings
    ]


def merge_shared(findings: Iterable[Diagnostic]) -> list[Diagnostic]:
    """One finding per line for the TrainJobs a shared cause breaks (module docstring).

    Findings that :func:`name_trainjob` named and that are equal but for the TrainJob
    become one, in the place of the first, whose message counts and names the TrainJobs:
    ``3 TrainJobs (ml/a, ml/b, ml/c): ...``, ``50 TrainJobs (ml/a, ml/b, ml/c and 47
    more): ...``. Every other finding is kept as it is, in order.
    """
    kept: list[Diagnostic | tuple[Diagnostic, list[str]]] = []
    groups: dict[Diagnostic, list[str]] = {}
    for found in findings:
        match = _NAMED_MESSAGE.fullmatch(found.message) if found.kind != _KIND else None
        if match is None:
            kept.append(found)
            continue
        key = replace(found, message=match["rest"])
        names = groups.get(key)
        if names is None:
            names = groups[key] = []
            kept.append((key, names))
        if match["job"] not in names:
            names.append(match["job"])
    return [item if isinstance(item, Diagnostic) else _merged(*item) for item in kept]


def _merged(finding: Diagnostic, names: list[str]) -> Diagnostic:
    """``finding`` (its message without a TrainJob) for the TrainJobs ``names``."""
    if len(names) == 1:
        return replace(finding, message=f"{_KIND} {names[0]}: {finding.message}")
    listed = ", ".join(names[:NAMED])
    if len(names) > NAMED:
        listed += f" and {len(names) - NAMED} more"
    return replace(finding, message=f"{counted(len(names), _KIND)} ({listed}): {finding.message}")
