"""What of the API server's CEL environment no offline evaluation can answer: ``authorizer``.

The API server compiles policy expressions with Kubernetes' own libraries on top of CEL's
(https://github.com/kubernetes/kubernetes/blob/v1.34.0/staging/src/k8s.io/apiserver/pkg/cel/environment/base.go);
trainc offers them too, by release (:mod:`trainc.schema.cel.library`). ``authorizer``
asks the cluster's authorizer whether the requester may do something: no offline answer
exists, so a policy whose expressions read it is reported as not evaluated, never as
admitting.
"""

from __future__ import annotations

from collections.abc import Iterable

from trainc.schema.cel.cost import tokens


def uses_authorizer(expressions: Iterable[str]) -> bool:
    """True when an expression reads the ``authorizer`` variable."""
    return any("authorizer" in _names(expression) for expression in expressions)


def _names(expression: str) -> set[str]:
    """Identifiers not reached through a dot (variables and global functions)."""
    found = tokens(expression)
    return {
        word
        for index, (kind, word) in enumerate(found)
        if kind == "word" and (index == 0 or found[index - 1] != ("op", "."))
    }
