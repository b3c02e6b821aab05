"""What a run judges for the way the repository is deployed (trainc.yaml's ``deploy``).

With ``deploy: JobSet`` (the default) trainc's compiled JobSets are what reaches the
cluster, and every rule applies. With ``deploy: TrainJob`` the TrainJobs go to the Trainer
controller as they are and trainc only validates them: the TrainJob, its runtime and the
JobSet and Jobs Trainer builds from them are judged as before, while the rules the
catalogue marks ``compiled`` (trainc's own JobSet metadata, the sweeper, the apply of
compiled objects, Kueue's fight with GitOps over a compiled JobSet's ``suspend``) are
off: none of what they judge exists then.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainc.config import DEPLOY_JOBSET, Deploy
from trainc.diagnostics import Diagnostic, rule_for


def in_force(diagnostics: Iterable[Diagnostic], deploy: Deploy) -> list[Diagnostic]:
    """``diagnostics`` without the findings of rules that are off for ``deploy``."""
    if deploy == DEPLOY_JOBSET:
        return list(diagnostics)
    return [found for found in diagnostics if not rule_for(found.code).compiled]
