"""``trainer.env`` entries that an ML plugin sets itself, which the plugin's ``Validate`` rejects.

Torch's, MPI's and XGBoost's ``Validate`` (``docs/upstream.md``, "Webhooks") each reject a
TrainJob whose ``trainer.env`` sets a variable the plugin computes, when the runtime's
``mlPolicy`` selects that plugin. The rule is the same for the three; the variables and
the wording are each plugin's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from trainc.checks.shared.template import Node, children
from trainc.diagnostics import Diagnostic, Rule, Severity
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import as_object, get_path

XOBJ_RESERVED_ENV = Rule(
    "xobj.reserved-env",
    Severity.ERROR,
    "trainer.env sets a variable the framework plugin reserves",
)


def check_reserved_env(
    trainjob: DefaultedObject,
    runtime: DefaultedObject,
    framework: str,
    reserved: Mapping[str, str | None],
    message: Callable[[str], str],
) -> list[Diagnostic]:
    """``trainer.env`` entries named in ``reserved``, when ``runtime`` runs ``framework``.

    ``reserved`` maps each variable to the TrainJob field that controls it instead (None
    when the TrainJob cannot), for the hint; ``message`` words the finding for a name.
    """
    if not isinstance(as_object(get_path(runtime.data, ("spec", "mlPolicy"))).get(framework), dict):
        return []
    found = []
    for entry in children(Node((), trainjob.data), "spec", "trainer", "env"):
        name = entry.name
        if name is None or name not in reserved:
            continue
        source = reserved[name]
        found.append(
            trainjob.finding(
                entry.at("name"),
                XOBJ_RESERVED_ENV.code,
                message(name),
                hint=f"delete it; set {source} instead" if source else "delete it",
            )
        )
    return found


def torch_or_mpi_message(framework: str) -> Callable[[str], str]:
    """The wording of Trainer's Torch and MPI webhooks, for ``framework``'s variables."""

    def message(name: str) -> str:
        return (
            f"must not have reserved envs, invalid envs configured: [{name}]: the "
            f"runtime's {framework} plugin sets it on every node"
        )

    return message
