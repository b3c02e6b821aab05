"""A compile: the repository validated, each clean TrainJob built, checked and rendered
into a sink, then the objects no one job owns (the sweeper's, the Namespaces).

The engine holds the validated repository, not its output: each job's rendering is
handed to the sink as soon as it is judged and let go. The sink is opened before the
first job it gets and closed in every case; it is finished (the output becomes visible)
only when the whole run found no error, so nothing half-valid is ever written
(:mod:`trainc.emit.sinks`). Every error a compile reports is validation's: building
reports nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from trainc.build.namespaces import build_namespaces
from trainc.build.sweeper import build_sweeper
from trainc.config.file import CONFIG_FILE_NAME
from trainc.config.settings import DEPLOY_TRAINJOB
from trainc.emit.selection import Selection
from trainc.emit.sinks import OutputSink
from trainc.engine.job_pass import JobStages
from trainc.engine.output import CompileOutput
from trainc.engine.report import ValidationReport
from trainc.engine.repository import Run, validate_repository
from trainc.errors import UsageError
from trainc.load.inputs import STDIN_NAME
from trainc.load.pathnames import text_name

#: Why compile refuses a validate-only repository, and what to run instead.
_VALIDATE_ONLY: Final = (
    "{config} sets deploy: TrainJob: the TrainJobs go to the Trainer controller, which "
    "builds their JobSets in the cluster, so trainc compiles nothing here. Run `trainc "
    "validate` (the trainc-validate pre-commit hook runs it) and apply the TrainJobs as "
    "they are; to deploy trainc's JobSets instead, remove `deploy` from {config} "
    '(docs/deploy.md, "Two ways to adopt trainc")'
)


@dataclass(frozen=True, slots=True)
class Compiled:
    """The validation of a compile, and how many TrainJobs went to the sink (0 when the
    run found errors: nothing was output)."""

    report: ValidationReport
    jobs: int = 0


def compile_repository(run: Run, sink: OutputSink[Any]) -> Compiled:
    """Validate the run's inputs and compile every clean TrainJob and the shared objects
    into ``sink``.

    Raises CompilerBug when an object trainc built fails its own output validation;
    UsageError when trainc.yaml says ``deploy: TrainJob``, where nothing is compiled.
    With named paths, the repository's own output directory is updated, not replaced
    (:mod:`trainc.emit.selection`).
    """
    config = run.config
    if config.deploy == DEPLOY_TRAINJOB:
        raise UsageError(_VALIDATE_ONLY.format(config=config.config_file or CONFIG_FILE_NAME))
    named = (text_name(path) for path in run.named_paths)
    selection = Selection((*named, *([STDIN_NAME] if run.stdin is not None else ())))
    output = CompileOutput(sink, config, selection)
    stages = JobStages(build=True, output=output)
    try:
        validated = validate_repository(run, stages)
        if validated.report.exit_code:
            return Compiled(validated.report)
        namespaces = output.namespaces()
        sweeper = build_sweeper(config, namespaces)
        output.finish((*build_namespaces(config, namespaces, sweeper), *sweeper))
        return Compiled(validated.report, len(output.swept))
    finally:
        output.close()
