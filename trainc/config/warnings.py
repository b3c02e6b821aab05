"""What trainc.yaml allows but a deployment rarely means: settings worth a second look.

- ``config.namespace-overrides-destination``: under Argo CD, trainc.yaml's ``namespace``
  differs from the Application's destination namespace and wins over it (see
  :func:`~trainc.config.settings.build_config`), so jobs land where the Application does not
  point. Users of config-management plugins expect the destination; a namespace in
  trainc.yaml is meant to be a deliberate exception.
- ``config.placeholder``: the sweeper image, or the repository ``.pre-commit-config.yaml``
  fetches trainc from, is still the placeholder ``trainc init`` wrote: the CronJob could
  not pull its image, and pre-commit could not install its hooks.
- ``config.not-deployed``: trainc.yaml says ``deploy: TrainJob`` (validate-only) and yet
  has a ``compile`` or ``sweeper`` section, which nothing uses then: no output is
  compiled and no sweeper runs (the Trainer controller enforces deadlines and TTLs).

They are warnings: the output is valid Kubernetes either way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from trainc.config.settings import (
    DEPLOY_TRAINJOB,
    PLACEHOLDER_IMAGE_REPOSITORY,
    PLACEHOLDER_PROJECT_URL,
    RepoConfig,
)
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.load.documents import Document
from trainc.load.inputs import load_single_file
from trainc.load.source import SourceFile
from trainc.model.json import as_list, as_object
from trainc.records import dataclass

CONFIG_NAMESPACE_OVERRIDES_DESTINATION = Rule(
    "config.namespace-overrides-destination",
    Severity.WARNING,
    "trainc.yaml's namespace overrides the Argo CD Application's destination namespace",
    doc=RuleDoc(
        what=(
            "under Argo CD, `namespace` in `trainc.yaml` differs from the Application's "
            "destination namespace (`ARGOCD_APP_NAMESPACE`) and wins over it, so objects "
            "that set no namespace land outside the destination"
        ),
        fix=(
            "remove `namespace` from `trainc.yaml` to follow the destination, or choose with "
            "the plugin parameter `namespace` in the Application (then nothing is overridden "
            "by accident); see [argocd.md](argocd.md#what-trainc-reads-from-argo-cd)"
        ),
    ),
)

CONFIG_PLACEHOLDER = Rule(
    "config.placeholder",
    Severity.WARNING,
    "the sweeper image or pre-commit's trainc repository is still trainc init's placeholder",
    doc=RuleDoc(
        what=(
            "`sweeper.image` is still `ghcr.io/example/trainc` (any tag), or a "
            "`repos[].repo` of `.pre-commit-config.yaml` is still "
            "`https://github.com/example/trainc`: the placeholders `trainc init` writes. The "
            "CronJob could not pull its image, and `pre-commit install` could not fetch the "
            "hooks"
        ),
        fix=(
            "build and push the image ([deploy.md](deploy.md#2-the-trainc-image)), name it in "
            "`sweeper.image`; name the git repository your organisation gets trainc from"
        ),
    ),
)

CONFIG_NOT_DEPLOYED = Rule(
    "config.not-deployed",
    Severity.WARNING,
    "with deploy: TrainJob, trainc.yaml's compile or sweeper section is not used",
)


#: pre-commit's configuration file, at the repository root.
PRE_COMMIT_CONFIG: Final = ".pre-commit-config.yaml"
#: trainc.yaml's sections that only a compile (and the sweeper it emits) reads.
_COMPILED_SECTIONS: Final = ("compile", "sweeper")


@dataclass(frozen=True, slots=True)
class ConfigWarnings:
    """The warnings, and the sources they quote that no other stage reads."""

    diagnostics: tuple[Diagnostic, ...]
    sources: dict[str, SourceFile]


def check_config(config: RepoConfig, document: Document | None) -> ConfigWarnings:
    """The namespace and placeholder warnings of the repository ``config``.

    ``document`` is the parsed trainc.yaml (None without one: then neither a namespace
    nor a sweeper is set, and only pre-commit's configuration is left to check).
    """
    found = [] if document is None else _in_trainc_yaml(config, document)
    pre_commit, sources = _placeholder_repository(config.root)
    return ConfigWarnings((*found, *pre_commit), sources)


def _in_trainc_yaml(config: RepoConfig, document: Document) -> list[Diagnostic]:
    found = []
    destination = config.overridden_destination
    if destination is not None:
        found.append(
            document.finding(
                ("namespace",),
                CONFIG_NAMESPACE_OVERRIDES_DESTINATION.code,
                f"trainc.yaml sets namespace {config.namespace!r}, which overrides the Argo "
                f"CD Application's destination namespace {destination!r}: objects that set "
                f"no namespace go to {config.namespace!r}",
                hint="remove `namespace` from trainc.yaml to follow the destination, or set "
                "the plugin parameter `namespace` to make the choice in the Application",
            )
        )
    if config.deploy == DEPLOY_TRAINJOB:
        found += _not_deployed(document)
    if config.sweeper is not None and _is_placeholder_image(config.sweeper.image):
        found.append(
            document.finding(
                ("sweeper", "image"),
                CONFIG_PLACEHOLDER.code,
                f"the sweeper image {config.sweeper.image!r} is the placeholder `trainc init` "
                "wrote: the sweeper's CronJob could not pull it",
                hint="build the image from trainc's Dockerfile, push it to your registry, "
                "and name it in `sweeper.image`",
            )
        )
    return found


def _not_deployed(document: Document) -> list[Diagnostic]:
    """The sections of trainc.yaml that validate-only mode leaves unused."""
    return [
        document.finding(
            (section,),
            CONFIG_NOT_DEPLOYED.code,
            f"trainc.yaml sets deploy: TrainJob, so its `{section}` section is not used: "
            "trainc compiles nothing and runs no sweeper when the Trainer controller "
            "deploys the TrainJobs",
            hint=f"remove `{section}`, or remove `deploy` to deploy trainc's JobSets",
        )
        for section in _COMPILED_SECTIONS
        if section in as_object(document.data)
    ]


def _is_placeholder_image(image: str) -> bool:
    """Whether ``image`` is the placeholder repository, with any tag or digest."""
    repository = image.split("@", maxsplit=1)[0]
    name, _, tag = repository.rpartition(":")
    if "/" in tag:  # a registry port, not a tag: registry:5000/path
        name = repository
    return (name or repository) == PLACEHOLDER_IMAGE_REPOSITORY


def _placeholder_repository(root: Path) -> tuple[list[Diagnostic], dict[str, SourceFile]]:
    """pre-commit entries that fetch trainc from the placeholder URL.

    A configuration trainc cannot read is pre-commit's business, not trainc's: it is
    left alone.
    """
    path = root / PRE_COMMIT_CONFIG
    if not path.is_file():
        return [], {}
    source, documents, problems = load_single_file(path, PRE_COMMIT_CONFIG)
    if problems or source is None or not documents:
        return [], {}
    document = documents[0]
    found = [
        document.finding(
            ("repos", index, "repo"),
            CONFIG_PLACEHOLDER.code,
            f"pre-commit fetches trainc from {PLACEHOLDER_PROJECT_URL}, the placeholder "
            "`trainc init` wrote: `pre-commit install` cannot fetch the hooks",
            hint="name the git repository your organisation gets trainc from, and its tag",
        )
        for index, repo in enumerate(as_list(as_object(document.data).get("repos")))
        if _is_placeholder_url(as_object(repo).get("repo"))
    ]
    return found, ({PRE_COMMIT_CONFIG: source} if found else {})


def _is_placeholder_url(url: object) -> bool:
    if not isinstance(url, str):
        return False
    return url.rstrip("/").removesuffix(".git") == PLACEHOLDER_PROJECT_URL
