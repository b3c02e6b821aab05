"""Secrets that plugins mount but trainc must never write: which existing Secret to use.

Trainer generates key material per TrainJob (MPI's SSH key pair, Flux's CURVE
certificate; ``docs/upstream.md``, "Objects trainc cannot reproduce offline"). trainc
never emits secret
material: the keys would land in Git and change on every compile. A runtime annotation
or, failing that, a trainc.yaml ``compile`` setting names a Secret provisioned out of
band (sealed-secrets, External Secrets, ``kubectl create secret``); the pods mount it
where Trainer mounts its generated one.
"""

from __future__ import annotations

import re

from trainc.model.json import FieldPath, as_object, get_path
from trainc.records import dataclass
from trainc.resolve.context import Resolution

_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
_MAX_NAME = 253


@dataclass(frozen=True, slots=True, kw_only=True)
class ProvisionedSecret:
    """How one plugin's Secret is named, and what to tell the user when it is not."""

    annotation: str
    """Runtime annotation naming the Secret; it wins over the trainc.yaml setting."""

    setting: str
    """The trainc.yaml key naming the Secret for every runtime, for messages."""

    code: str
    """Diagnostic code when neither names a valid Secret."""

    policy: FieldPath
    """Where in the runtime the plugin's policy is, to locate that diagnostic."""

    contents: str
    """What the Secret must hold (type, keys), for messages."""

    generated: str
    """What Trainer would generate instead, for messages."""

    provision: str
    """How to create the Secret, for the hint."""

    def name(self, context: Resolution, configured: str | None) -> str | None:
        """The Secret's name, or None after reporting why there is none."""
        runtime = context.job.runtime
        annotations = as_object(get_path(runtime.data, ("metadata", "annotations")))
        if self.annotation in annotations:
            value = annotations[self.annotation]
            if isinstance(value, str) and _valid(value):
                return value
            context.findings.append(
                runtime.finding(
                    ("metadata", "annotations", self.annotation),
                    self.code,
                    f"{self.annotation} must name a Secret (a DNS subdomain of at most "
                    f"{_MAX_NAME} characters), not {value!r}",
                )
            )
            return None
        if configured is not None:
            return configured
        context.findings.append(
            runtime.finding(
                self.policy,
                self.code,
                f"the pods need {self.contents}. Trainer generates {self.generated} for "
                "every TrainJob; trainc does not, because compiling must give the same "
                "output every time and secret material must never be committed to Git. "
                "Name a Secret that is provisioned out of band instead",
                hint=f"set {self.setting} in trainc.yaml for every runtime, or annotate this "
                f"runtime with {self.annotation}: <name> (the annotation wins); "
                f"{self.provision}",
            )
        )
        return None


def _valid(name: str) -> bool:
    return len(name) <= _MAX_NAME and _NAME.fullmatch(name) is not None
