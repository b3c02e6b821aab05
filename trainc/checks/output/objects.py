"""Output validation: every object trainc is about to write, judged as the API server would.

Any problem found here is a trainc bug, never the user's: inputs were validated before
the build, so the caller raises :class:`~trainc.errors.CompilerBug` with these messages
(exit code 2). Each object gets the checks of its kind:

- **Custom resources** (JobSet, PodGroups): the JSON Schema trainc generates for the kind,
  its CRD defaults, then its create-time CEL rules (``docs/upstream.md``, "API server");
  for the JobSet also the webhook's generated-name budgets (``docs/upstream.md``,
  "JobSet"), shared with the input check
  in :mod:`trainc.checks.created.names`, and the API server's rules for the Jobs the
  JobSet controller creates from it, the very checks validation ran on the resolved job
  (:mod:`trainc.checks.created.childjobs`).
- **Core kinds** (PersistentVolumeClaim, ConfigMap, CronJob, RBAC, ...): the
  ``kubernetes-validate`` package's strict schemas for the configured Kubernetes version.
- **Every object**: the ObjectMeta rules (name, namespace, label and annotation keys).

A kind with no schema at all is a problem too: trainc must not emit what it cannot check.

Kubernetes versions. ``kubernetes-validate`` bundles schemas for a range of minor versions.
A configured version outside that range is judged by the nearest bundled one, and every
problem message then names the version used. This is a deliberate choice over a usage
error: the core kinds trainc emits are stable ``v1`` APIs whose shape does not change
between neighbouring minors, and a cluster newer than the installed package must not stop
a compile. Only a version that is not ``MAJOR.MINOR`` is a usage error.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from trainc.checks.output.kinds import (
    check_child_jobs,
    check_custom_resource,
    check_object_metadata,
    custom_schema,
)
from trainc.checks.workload.version import parse_version, read_version
from trainc.model.json import FieldPath, JsonObject, format_path
from trainc.schema.structural import ReferencedSchemas

_LOG = logging.getLogger(__name__)


class OutputCheck:
    """The output check for one Kubernetes version, reused for every object of a compile.

    Raises UsageError when ``kubernetes_version`` is not ``MAJOR.MINOR``. The core
    schemas are chosen on the first core object, so a compile that emits none never
    loads kubernetes-validate.
    """

    def __init__(self, kubernetes_version: str) -> None:
        self._requested = parse_version(kubernetes_version)
        self._core: _CoreValidator | None = None

    def problems(self, objects: Iterable[JsonObject], *, jobs: bool = True) -> list[str]:
        """One message per problem, each naming the object; empty when everything is valid.

        ``jobs=False`` leaves out the JobSets' Jobs, for a caller whose validation already
        judged the very spec a JobSet carries (compile, which copies the resolved spec).
        """
        found: list[str] = []
        for obj in objects:
            problems = check_object_metadata(obj)
            schema = custom_schema(obj)
            if schema is not None:
                problems += check_custom_resource(obj, schema)
                if jobs:
                    problems += check_child_jobs(obj, self._requested)
            else:
                self._core = self._core or _CoreValidator.for_version(self._requested)
                problems += self._core.check(obj)
            found.extend(f"{_describe(obj)}: {problem}" for problem in problems)
        return found

    def serves(self, api_version: str, kind: str) -> bool:
        """Whether the Kubernetes version serves ``kind`` under ``api_version`` as a built-in
        kind (kubernetes-validate has its schema)."""
        self._core = self._core or _CoreValidator.for_version(self._requested)
        return self._core.knows(kind, api_version)

    def core_violation(self, obj: JsonObject) -> tuple[FieldPath, str] | None:
        """The first schema violation of a core object, with its path; None when it is
        valid or kubernetes-validate has no schema for its kind (a custom resource)."""
        self._core = self._core or _CoreValidator.for_version(self._requested)
        return self._core.violation(obj)


def _describe(obj: JsonObject) -> str:
    metadata = obj.get("metadata")
    meta = metadata if isinstance(metadata, dict) else {}
    namespace = meta.get("namespace")
    where = f"{namespace}/" if isinstance(namespace, str) else ""
    return f"{obj.get('apiVersion')} {obj.get('kind')} {where}{meta.get('name')}"


@dataclass(frozen=True, slots=True)
class _CoreValidator:
    """kubernetes-validate's strict schemas at one bundled version, each compiled once.

    ``version`` is the ``MAJOR.MINOR`` judged by, ``bundled`` the package's name for it
    (``1.33.0``). ``note`` is set when the configured version is not bundled: problem
    messages then say which version judged them.
    """

    version: str
    bundled: str
    note: str

    @classmethod
    def for_version(cls, requested: tuple[int, int]) -> _CoreValidator:
        """The bundled schema version nearest to ``requested`` (the newest not above it)."""
        # Imported here: kubernetes-validate pulls in jsonschema and referencing (~200 ms).
        from kubernetes_validate.utils import all_versions  # noqa: PLC0415

        bundled = {v: text for text in all_versions() if (v := read_version(text)) is not None}
        chosen = max((v for v in bundled if v <= requested), default=min(bundled))
        version = f"{chosen[0]}.{chosen[1]}"
        wanted = f"{requested[0]}.{requested[1]}"
        if chosen == requested:
            return cls(version, bundled[chosen], "")
        _LOG.debug("kubernetes-validate has no %s schemas; using %s", wanted, version)
        return cls(
            version,
            bundled[chosen],
            f" (judged by the Kubernetes {version} schemas: {wanted} is not bundled)",
        )

    def violation(self, obj: JsonObject) -> tuple[FieldPath, str] | None:
        """The first schema violation of ``obj`` with its path; None when it is valid or
        its kind has no schema here."""
        from kubernetes_validate import InvalidSchemaError, SchemaNotFoundError  # noqa: PLC0415

        kind, api_version = str(obj.get("kind")), str(obj.get("apiVersion"))
        try:
            schema = _core_schema(self.bundled, self.version, kind, api_version)
        except (SchemaNotFoundError, InvalidSchemaError):
            return None
        violation = _core_schemas(self.bundled, self.version).first_violation(
            f"{api_version} {kind}", schema, obj
        )
        if violation is None:
            return None
        return tuple(violation.path), f"{violation.message}{self.note}"

    def knows(self, kind: str, api_version: str) -> bool:
        """Whether this version has a schema for ``kind`` under ``api_version``."""
        from kubernetes_validate import InvalidSchemaError, SchemaNotFoundError  # noqa: PLC0415

        try:
            _core_schema(self.bundled, self.version, kind, api_version)
        except (SchemaNotFoundError, InvalidSchemaError):
            return False
        return True

    def check(self, obj: JsonObject) -> list[str]:
        """The first schema violation of a core object, as kubernetes-validate finds it."""
        from kubernetes_validate import InvalidSchemaError, SchemaNotFoundError  # noqa: PLC0415

        kind, api_version = str(obj.get("kind")), str(obj.get("apiVersion"))
        try:
            schema = _core_schema(self.bundled, self.version, kind, api_version)
        except (SchemaNotFoundError, InvalidSchemaError) as error:
            return [f"cannot be validated: {error.message}{self.note}"]
        violation = _core_schemas(self.bundled, self.version).first_violation(
            f"{api_version} {kind}", schema, obj
        )
        if violation is None:
            return []
        path = format_path(list(violation.path))
        return [f"{path or 'the object'}: {violation.message}{self.note}"]


# kubernetes-validate's ``validate()`` reads a kind's schema and the shared definitions
# from disk and builds a python-jsonschema validator on every call (~7 ms an object).
# trainc reads the same files through the package's own ``schema_contents`` once per
# version and kind, and checks with jsonschema-rs. The judgement is the same: the same
# strict schemas (``-strict``: no unknown fields), the same dialect (Draft 2020-12, the
# schemas' ``$schema``), the definitions resolved under the same ``$id``, formats as
# annotations in both (kubernetes-validate passes no format checker). What may differ
# is the wording of a message, and which error comes first when there are several;
# either only describes a trainc bug (see the module docstring).


def _schema_directory(bundled: str) -> str:
    """kubernetes-validate's directory of strict schemas for a bundled version."""
    return f"kubernetes-json-schema/v{bundled}-local-strict"


@functools.cache
def _core_schemas(bundled: str, version: str) -> ReferencedSchemas:
    """The compiled schemas of one version, over its shared definitions (read once)."""
    from kubernetes_validate.utils import schema_contents  # noqa: PLC0415 - see for_version

    definitions = schema_contents(f"{_schema_directory(bundled)}/_definitions.json", version)
    return ReferencedSchemas([definitions])


#: What a kind and an apiVersion look like: a name, and ``v1`` or ``group/version``.
_KIND: Final = re.compile(r"[A-Za-z][A-Za-z0-9]{0,62}")
_API_VERSION: Final = re.compile(r"(?:[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?/)?v[0-9a-z]{1,20}")


@functools.cache
def _core_schema(bundled: str, version: str, kind: str, api_version: str) -> JsonObject:
    """A kind's strict schema, found where and as ``kubernetes_validate.validate`` finds it.

    Raises kubernetes-validate's SchemaNotFoundError or InvalidSchemaError.
    """
    from kubernetes_validate.utils import (  # noqa: PLC0415 - see for_version
        SchemaNotFoundError,
        schema_contents,
    )

    # A kind or apiVersion that is no name (a cluster manifest may hold anything) names
    # no file: looking one up would open a path outside the bundle, or one too long.
    if _KIND.fullmatch(kind) is None or _API_VERSION.fullmatch(api_version) is None:
        raise SchemaNotFoundError(kind=kind, version=version, api_version=api_version)
    # The package's file naming: rbac.authorization.k8s.io/v1 -> rbac-v1.
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    name = f"{_schema_directory(bundled)}/{kind.lower()}-{group_version}.json"
    try:
        schema: JsonObject = schema_contents(name, version)
    except FileNotFoundError as error:
        raise SchemaNotFoundError(kind=kind, version=version, api_version=api_version) from error
    return schema
