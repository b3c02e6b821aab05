"""Argo CD's plugin inputs: an Application's choices, read from the environment of the plugin.

Argo CD's config-management-plugin server runs ``trainc compile -o -``
(``deploy/argocd/plugin.yaml``) in the Application's source directory, with the
Application's settings in the environment (Argo CD's guide to config-management plugins:
https://github.com/argoproj/argo-cd/blob/master/docs/operator-manual/config-management-plugins.md).
That is its ``spec.source.plugin.parameters`` as ``PARAM_<NAME>`` (upper case, anything but
``A-Z0-9_`` turned into ``_``), its ``spec.source.plugin.env`` entries prefixed with
``ARGOCD_ENV_``, and the build environment (``ARGOCD_APP_NAME``, ``ARGOCD_APP_NAMESPACE``,
``KUBE_VERSION``, ...). The server passes no variable whose value is empty, and no default
that ``plugin.yaml`` announces: trainc's own defaults apply.

This module maps that environment to :class:`~trainc.config.settings.Overrides`. It is a pure
function of the mapping it is given (the command line passes ``os.environ``), and only
the command line uses it; ``$$`` escaping is Argo CD's business, done before trainc runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from trainc.checks.workload.version import nearest_release, release_text
from trainc.config.settings import Overrides
from trainc.errors import UsageError
from trainc.schema.metadata import dns1123_label_errors

#: Set by the CMP server for every command it runs: its presence means "under Argo CD".
_APP_NAME = "ARGOCD_APP_NAME"

#: Where each choice may come from, first wins: the plugin parameter, then plugin env.
_ENVIRONMENT_VARIABLES = ("PARAM_ENV", "ARGOCD_ENV_TRAINC_ENV")
_NAMESPACE_VARIABLES = ("PARAM_NAMESPACE", "ARGOCD_ENV_TRAINC_NAMESPACE")
_DESTINATION_NAMESPACE = "ARGOCD_APP_NAMESPACE"
_KUBE_VERSION = "KUBE_VERSION"

# MAJOR.MINOR at the start of a cluster's version: ``1.29.3``, ``v1.29.3+k3s1``, and the
# ``v1.29.3k3s1`` that Argo CD makes of it by dropping the ``+``.
_MINOR_VERSION = re.compile(r"v?(\d+)\.(\d+)(?!\d)")


def argocd_overrides(environ: Mapping[str, str]) -> Overrides:
    """What an Argo CD Application asks of trainc; nothing at all outside Argo CD.

    Precedence, first wins:

    - **environment** of trainc.yaml: ``--env`` on the command line, ``PARAM_ENV``,
      ``ARGOCD_ENV_TRAINC_ENV``; none: the top-level ``values`` only.
    - **namespace** of objects that set none: ``PARAM_NAMESPACE``,
      ``ARGOCD_ENV_TRAINC_NAMESPACE``, trainc.yaml's ``namespace``, the Application's
      destination namespace ``ARGOCD_APP_NAMESPACE``, ``default``. trainc.yaml winning
      over a different destination is reported (``config.namespace-overrides-destination``).
    - **kubernetesVersion**: trainc.yaml's, then MAJOR.MINOR of ``KUBE_VERSION`` (the
      destination cluster's), then trainc's default. A repository that pins a release
      says so on purpose (``trainc init`` pins none); a cluster older or newer than the
      releases trainc models (:data:`~trainc.checks.workload.version.KNOWN_RELEASES`)
      is judged by the nearest of them.

    Outside Argo CD (no ``ARGOCD_APP_NAME``) nothing is read, so a stray ``PARAM_ENV`` in
    a shell never changes what ``trainc compile`` writes. Empty values count as unset, as
    the CMP server never passes them. Raises UsageError for a namespace the API server
    would reject, naming the variable. A ``KUBE_VERSION`` without MAJOR.MINOR is ignored:
    it describes the cluster, which no one can correct in the Application.
    """
    if not environ.get(_APP_NAME):
        return Overrides()
    environment = _first(environ, _ENVIRONMENT_VARIABLES)
    namespace = _first(environ, _NAMESPACE_VARIABLES)
    destination = _first(environ, (_DESTINATION_NAMESPACE,))
    return Overrides(
        environment=environment[1] if environment else None,
        environment_source=environment[0] if environment else "--env",
        namespace=_namespace(namespace),
        default_namespace=_namespace(destination),
        kubernetes_version=_minor_version(environ.get(_KUBE_VERSION, "")),
    )


def _first(environ: Mapping[str, str], names: tuple[str, ...]) -> tuple[str, str] | None:
    """(variable, value) of the first of ``names`` set to a non-empty value."""
    return next(((name, environ[name]) for name in names if environ.get(name)), None)


def _namespace(setting: tuple[str, str] | None) -> str | None:
    if setting is None:
        return None
    name, value = setting
    problems = dns1123_label_errors(value)
    if problems:
        raise UsageError(f"{name}={value!r} is not a namespace name: {'; '.join(problems)}")
    return value


def _minor_version(value: str) -> str | None:
    """MAJOR.MINOR of a cluster's version, within the releases trainc models."""
    match = _MINOR_VERSION.match(value)
    if match is None:
        return None
    return release_text(nearest_release((int(match.group(1)), int(match.group(2)))))
