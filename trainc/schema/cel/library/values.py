"""The libraries' own types (Quantity, IP, CIDR, URL, Semver), as the engine carries them.

cel-expr-python 0.1.3 type-checks an abstract (opaque) type but cannot hold a value of
one at run time, so the adapter type-checks with the real types (an expression calling
``quantity('1').getHost()`` or ``quantity('1')['x']`` fails to compile, as upstream) and
evaluates with each value as a one-entry map from its type name to its canonical text:
``{"kubernetes.Quantity": "1.5"}``. Canonical texts make CEL's ``==`` agree with
upstream's ``Equal`` (``quantity('1') == quantity('1000m')``; two CIDRs equal when
address and length are); ``type()`` of such a value is ``map`` here where upstream says
``kubernetes.Quantity``, a difference docs/admission.md states.
"""

from __future__ import annotations

from trainc.schema.cel.library.declare import LibraryError

QUANTITY = "kubernetes.Quantity"
IP = "net.IP"
CIDR = "net.CIDR"
URL = "kubernetes.URL"
SEMVER = "kubernetes.Semver"
FORMAT = "kubernetes.NamedFormat"

#: Type names of the libraries' values (upstream's names, from ``k8s.io/apiserver/pkg/cel``).
OPAQUE_TYPES = frozenset({QUANTITY, IP, CIDR, URL, SEMVER, FORMAT})


def wrap(type_name: str, text: str) -> dict[str, str]:
    """The engine's value of ``type_name`` with canonical ``text``."""
    return {type_name: text}


def unwrap(value: object, type_name: str) -> str:
    """The canonical text of ``value``, which must be a ``type_name``."""
    if isinstance(value, dict) and len(value) == 1:
        text = value.get(type_name)
        if isinstance(text, str):
            return text
    raise LibraryError("no such overload")


def is_a(value: object, type_name: str) -> bool:
    """Whether ``value`` is the engine's value of ``type_name``."""
    return isinstance(value, dict) and len(value) == 1 and type_name in value
