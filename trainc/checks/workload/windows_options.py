"""Windows security options: a GMSA credential spec and a ``[DOMAIN\\]USER`` to run as.

A pod or container that targets Windows names the account its processes run as and
optionally a group-managed service account. A name with a control character, two
backslashes or a forbidden character makes the API server refuse the pod. The rules
follow ``validateWindowsSecurityContextOptions``; they apply to the pod's security
context and to each container's.
"""

from __future__ import annotations

import re

from trainc.checks.workload.fielderrors import FieldError, invalid
from trainc.model.json import FieldPath, JsonValue
from trainc.schema.metadata import dns1123_subdomain_errors

_GMSA_SPEC_MAX_KIB = 64
_DOMAIN_MAX = 256
_USER_MAX = 104
_NETBIOS_DOMAIN = r'[^\\/:*?"<>|.][^\\/:*?"<>|]{0,14}'
_DNS_DOMAIN_LABEL = "[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
_DNS_DOMAIN = rf"{_DNS_DOMAIN_LABEL}(?:\.{_DNS_DOMAIN_LABEL})*"


def windows_options_errors(options: JsonValue, path: FieldPath, code: str) -> list[FieldError]:
    """``validateWindowsSecurityContextOptions``: GMSA credential spec and run-as user."""
    if not isinstance(options, dict):
        return []
    errors: list[FieldError] = []
    spec_name = options.get("gmsaCredentialSpecName")
    if isinstance(spec_name, str):
        errors += [
            invalid((*path, "gmsaCredentialSpecName"), code, spec_name, message)
            for message in dns1123_subdomain_errors(spec_name)
        ]
    spec = options.get("gmsaCredentialSpec")
    if spec == "":
        errors.append(
            invalid(
                (*path, "gmsaCredentialSpec"),
                code,
                spec,
                "gmsaCredentialSpec cannot be an empty string",
            )
        )
    elif isinstance(spec, str) and len(spec.encode()) > _GMSA_SPEC_MAX_KIB * 1024:
        detail = f"gmsaCredentialSpec size must be under {_GMSA_SPEC_MAX_KIB} KiB"
        errors.append(invalid((*path, "gmsaCredentialSpec"), code, spec, detail))
    user = options.get("runAsUserName")
    if isinstance(user, str):
        errors += [
            invalid((*path, "runAsUserName"), code, user, detail)
            for detail in _run_as_user_name_errors(user)
        ]
    return errors


def _run_as_user_name_errors(name: str) -> list[str]:
    """Why ``name`` is no Windows ``[DOMAIN\\]USER`` account name; empty if it is one."""
    if not name:
        return ["runAsUserName cannot be an empty string"]
    if re.search(r"[\x00-\x1f\x7f]", name):
        return ["runAsUserName cannot contain control characters"]
    parts = name.split("\\")
    if len(parts) > 2:  # noqa: PLR2004 - at most DOMAIN\USER
        return ["runAsUserName cannot contain more than one backslash"]
    domain, user = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])  # noqa: PLR2004
    errors: list[str] = []
    if len(domain.encode()) >= _DOMAIN_MAX:
        errors.append(f"runAsUserName's Domain length must be under {_DOMAIN_MAX} characters")
    if len(parts) == 2 and not (  # noqa: PLR2004
        re.fullmatch(_NETBIOS_DOMAIN, domain) or re.fullmatch(_DNS_DOMAIN, domain)
    ):
        errors.append("runAsUserName's Domain doesn't match the NetBios nor the DNS format")
    if not user:
        errors.append("runAsUserName's User cannot be empty")
    elif len(user.encode()) > _USER_MAX:
        errors.append(f"runAsUserName's User length must not be longer than {_USER_MAX} characters")
    if re.fullmatch(r"[. ]+", user):
        errors.append("runAsUserName's User cannot contain only periods or spaces")
    if re.search(r'["/\\:;|=,+*?<>@\[\]]', user):
        errors.append(
            "runAsUserName's User cannot contain the following characters: \"/\\:;|=,+*?<>@[]"
        )
    return errors
