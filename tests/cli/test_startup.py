"""What a single-file ``trainc validate`` (the pre-commit hook) imports: only what judging
that file needs, every module of it listed here. Counted by module names, never timed
(speed belongs in bench/)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: Imported by other commands, other report formats, templates, --base or a worker
#: pool: none of them by one clean TrainJob validated with the text report.
NOT_NEEDED = (
    "multiprocessing",
    "ctypes",
    "jinja2",
    "ruamel",
    "kubernetes",
    "trainc.crdgen",
    "trainc.emit",
    "trainc.migrate",
    "trainc.prune",
    "trainc.diff",
    "trainc.explain",
    "trainc.sweep",
    "trainc.load.gitref",
    "trainc.load.template",
    "trainc.checks.transitions.base",
    # Without a ``cluster`` section, no admission is judged: nothing of it is imported.
    "trainc.checks.admission",
    "trainc.report.github",
    "trainc.report.json",
    "trainc.report.junit",
    "trainc.report.sarif",
)

#: Every trainc module the hook's run imports (less the ``trainc.`` prefix). A module that
#: joins this set costs every commit of every user its import time: defer it to the
#: function that needs it when a clean one-file run does not (docs/performance.md).
HOOK_MODULES = """
    app app.cache app.compile app.library app.options app.schemas app.session
    argocd
    build build.job
    cache cache.budget cache.keys cache.layouts cache.location cache.pack cache.packed
    cache.stat_index cache.store
    catalogue
    checks checks.apply_limits checks.created checks.created.childjobs
    checks.created.coordinator checks.created.credentials checks.created.images
    checks.created.jobset checks.created.names checks.created.resolved_job checks.namespaces
    checks.shared checks.shared.findings checks.shared.locate checks.shared.template
    checks.shared.whose checks.webhooks checks.webhooks.claim_clashes
    checks.webhooks.coordinator checks.webhooks.cross_object checks.webhooks.duplicates
    checks.webhooks.elsewhere checks.webhooks.initializers checks.webhooks.jobset_policies
    checks.webhooks.jobset_webhook checks.webhooks.lifecycle checks.webhooks.patches
    checks.webhooks.runtime_ref checks.webhooks.runtime_webhook checks.workload
    checks.workload.affinity checks.workload.badvalues checks.workload.claims
    checks.workload.container_context checks.workload.container_security
    checks.workload.containers checks.workload.dns checks.workload.downward
    checks.workload.env checks.workload.env_sources checks.workload.ephemeral
    checks.workload.fielderrors checks.workload.handlers checks.workload.job
    checks.workload.job_policies checks.workload.job_selector checks.workload.jsonfields
    checks.workload.lifecycle checks.workload.mounts checks.workload.network_volumes
    checks.workload.objects checks.workload.pod checks.workload.pod_annotations
    checks.workload.pod_os checks.workload.pod_security checks.workload.podresources
    checks.workload.ports checks.workload.predicates checks.workload.probes
    checks.workload.projected checks.workload.pull_policy checks.workload.quantities
    checks.workload.resize_policy checks.workload.resources checks.workload.restart_rules
    checks.workload.scheduling checks.workload.selectors checks.workload.version
    checks.workload.volume_files checks.workload.volume_sources checks.workload.volumes
    checks.workload.windows_options
    cli cli.main cli.options cli.progress cli.validate
    config config.cron config.file config.judgement config.kubernetes_version config.limits
    config.policy_settings config.read config.rule_codes config.settings config.sweeper
    config.warnings
    diagnostics
    engine engine.admission engine.blocking engine.cache engine.file_pass engine.job_pass
    engine.left_out engine.outlines engine.pipeline engine.progress engine.report
    engine.repository engine.spill engine.wholes engine.workers
    errors
    load load.convert load.declared load.defaulted load.discover load.documents
    load.fastyaml load.file_indexes load.globs load.input_settings load.inputs
    load.left_out_runtimes load.listings load.named_files load.objects load.packages
    load.pathnames
    load.prefilter load.reader load.runtime_files load.scalars load.seen load.shallow
    load.source load.suppressions load.word_filter load.yamlsrc
    model model.decode model.introspect model.jobset model.json model.k8s model.kinds
    model.labels model.lifecycle model.markers model.meta model.mlpolicy model.patches
    model.patterns model.policy model.runtime model.scalars model.schemafiles
    model.schematree model.status model.trainjob
    plugins plugins.coscheduling plugins.flux plugins.jax plugins.jobset plugins.kueue
    plugins.lifecycle plugins.metadata plugins.mpi plugins.plainml plugins.registry
    plugins.shared plugins.shared.objects plugins.shared.podgroup
    plugins.shared.reserved_env plugins.torch plugins.torchtune plugins.volcano
    plugins.volumes plugins.xgboost
    policy policy.apply policy.compile policy.evaluate policy.files policy.load
    policy.summary
    records
    records_methods
    report report.base report.text
    resolve resolve.childjobs resolve.claims resolve.context resolve.edits resolve.endpoints
    resolve.framework resolve.index resolve.job resolve.jobset_defaults resolve.patches
    resolve.phases resolve.provenance resolve.quantity resolve.resolved resolve.resources
    resolve.scheduling resolve.secrets resolve.trainer
    resources
    schema schema.cel schema.cel.cost schema.cel.declared schema.cel.engine
    schema.cel.library schema.cel.library.declare
    schema.cel.evaluate schema.cel.plan schema.cel.reads schema.cel.rules schema.cel.sizes
    schema.cel.subject schema.cel.values schema.defaults schema.layers schema.metadata
    schema.migrations schema.remembered_checks schema.rewrites schema.structural
"""
#: The libraries it imports, besides Python's own (``cython_runtime`` comes with PyYAML's
#: C extension).
HOOK_LIBRARIES = {"cel_expr_python", "click", "cython_runtime", "jsonschema_rs", "yaml"}

_SCRIPT = """
import sys
from trainc.cli.main import main
try:
    main(["validate", sys.argv[1]])
except SystemExit as end:
    print("exit", end.code, file=sys.stderr)
print("imported:", *sorted(sys.modules))
"""


def _imported(path: str) -> set[str]:
    """The modules a clean ``trainc validate PATH`` in examples/ imports."""
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT, path],
        cwd=EXAMPLES,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "exit 0" in completed.stderr
    last = completed.stdout.splitlines()[-1].split()
    assert last[0] == "imported:"
    return set(last[1:])


def test_single_file_validate_imports_only_what_it_uses() -> None:
    modules = _imported("jobs/llm/llama-finetune.yaml")
    # The run did judge and build the job (its runtime found elsewhere in the repository).
    assert {"trainc.engine.pipeline", "trainc.build.job", "trainc.report.text"} <= modules
    loaded = sorted(
        name
        for name in modules
        for heavy in NOT_NEEDED
        if name.split(".")[: heavy.count(".") + 1] == heavy.split(".")
    )
    assert loaded == []


def test_the_hook_imports_only_the_modules_listed() -> None:
    modules = _imported("jobs/llm/llama-finetune.yaml")
    allowed = {"trainc", *(f"trainc.{name}" for name in HOOK_MODULES.split())}
    trainc = {name for name in modules if name.split(".")[0] == "trainc"}
    assert (sorted(trainc - allowed), sorted(allowed - trainc)) == ([], []), (
        "the modules the hook imports changed (joined, left): keep HOOK_MODULES exact"
    )
    libraries = {
        name.split(".")[0]
        for name in modules
        if name.split(".")[0] not in sys.stdlib_module_names and not name.startswith("_")
    }
    assert libraries - {"trainc"} == HOOK_LIBRARIES


def test_a_repository_without_a_cluster_imports_no_admission_check() -> None:
    modules = _imported(".")
    assert "trainc.build.job" in modules
    assert not {name for name in modules if name.startswith("trainc.checks.admission")}
