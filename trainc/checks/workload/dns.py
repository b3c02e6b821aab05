"""A pod's names and name resolution: DNS policy and config, hostname, host aliases.

A distributed training job finds its peers by name: the JobSet gives each pod a hostname
and subdomain, and some clusters point pods at a private resolver with ``dnsPolicy:
None``. A policy the kubelet does not know, ``None`` without nameservers, or a host alias
with no IP address makes the API server refuse every pod of the Job. The rules follow
``validateDNSPolicy``, ``validatePodDNSConfig``, ``ValidatePodSpec``'s hostname and
subdomain checks and ``ValidateHostAliases``; IP addresses are judged as
``netutils.ParseIPSloppy`` parses them (IPv4 octets may carry leading zeros).
"""

from __future__ import annotations

import ipaddress
import re

from trainc.checks.workload.badvalues import go_string_slice, invalid_composite
from trainc.checks.workload.fielderrors import FieldError, invalid, not_supported, required
from trainc.checks.workload.jsonfields import objects, strings, text
from trainc.checks.workload.version import Gate, KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_list
from trainc.model.patterns import DNS1123_SUBDOMAIN_WITH_UNDERSCORE
from trainc.schema.metadata import (
    SUBDOMAIN_MAX,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    max_len_error,
)

POD_DNS = Rule(
    "pod.dns",
    Severity.ERROR,
    "dnsPolicy, dnsConfig, hostname, subdomain or hostAliases are invalid",
    doc=RuleDoc(
        what=(
            "`dnsPolicy`, `dnsConfig` (nameservers, searches, options; `None` needs "
            "nameservers), `hostname`, `subdomain`, `hostAliases`"
        ),
        source="`validateDNSPolicy`, `validatePodDNSConfig`, `ValidateHostAliases`",
        versions="search domains relaxed from 1.33",
    ),
)


DNS = POD_DNS.code

#: From 1.33 a search domain may be ``.`` or hold underscores (``_tcp.example.com``).
RELAXED_DNS_SEARCH = Gate("RelaxedDNSSearchValidation", (1, 33))

_DNS_POLICIES = ("ClusterFirstWithHostNet", "ClusterFirst", "Default", "None")
#: libc's resolver limits, which ``validatePodDNSConfig`` enforces.
_MAX_NAMESERVERS = 3
_MAX_SEARCH_PATHS = 32
_MAX_SEARCH_CHARS = 2048
_INVALID_IP = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"


def effective_dns_policy(pod_spec: JsonObject) -> str:
    """``dnsPolicy`` after ``SetDefaults_PodSpec`` (``ClusterFirst`` when unset)."""
    return text(pod_spec.get("dnsPolicy")) or "ClusterFirst"


def dns_policy_errors(pod_spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``validateDNSPolicy``: one of the four policies the kubelet implements."""
    policy = effective_dns_policy(pod_spec)
    if policy in _DNS_POLICIES:
        return []
    return [not_supported((*path, "dnsPolicy"), DNS, policy, _DNS_POLICIES)]


def dns_config_errors(
    pod_spec: JsonObject, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    """``validatePodDNSConfig``: ``None`` needs nameservers; libc's limits hold."""
    config = pod_spec.get("dnsConfig")
    config_path = (*path, "dnsConfig")
    if effective_dns_policy(pod_spec) == "None":
        if config is None:
            return [required(config_path, DNS, "must provide `dnsConfig` when `dnsPolicy` is None")]
        if isinstance(config, dict) and not as_list(config.get("nameservers")):
            detail = "must provide at least one DNS nameserver when `dnsPolicy` is None"
            return [required((*config_path, "nameservers"), DNS, detail)]
    if not isinstance(config, dict):
        return []
    errors = _nameserver_errors(config.get("nameservers"), (*config_path, "nameservers"), version)
    errors += _search_errors(config.get("searches"), (*config_path, "searches"), version)
    errors += [
        required((*config_path, "options", index), DNS, "must not be empty")
        for index, option in objects(config.get("options"))
        if text(option.get("name")) == ""
    ]
    return errors


def _nameserver_errors(
    nameservers: JsonValue, path: FieldPath, version: KubeVersion
) -> list[FieldError]:
    servers = as_list(nameservers)
    errors: list[FieldError] = []
    if len(servers) > _MAX_NAMESERVERS:
        detail = f"must not have more than {_MAX_NAMESERVERS} nameservers"
        errors.append(_list_error(path, servers, detail, version))
    for index, server in enumerate(servers):
        if isinstance(server, str):
            errors += ip_errors(server, (*path, index), DNS)
    return errors


def _search_errors(searches: JsonValue, path: FieldPath, version: KubeVersion) -> list[FieldError]:
    domains = as_list(searches)
    errors: list[FieldError] = []
    if len(domains) > _MAX_SEARCH_PATHS:
        errors.append(
            invalid(path, DNS, domains, f"must not have more than {_MAX_SEARCH_PATHS} search paths")
        )
    names = strings(domains)
    if len(" ".join(names).encode()) > _MAX_SEARCH_CHARS:
        detail = (
            f"must not have more than {_MAX_SEARCH_CHARS} characters (including spaces) in the "
            "search list"
        )
        errors.append(_list_error(path, domains, detail, version))
    relaxed = RELAXED_DNS_SEARCH.enabled(version)
    for index, domain in enumerate(domains):
        if not isinstance(domain, str) or (relaxed and domain == "."):
            continue
        name = domain.removesuffix(".")
        messages = (
            _subdomain_with_underscore_errors(name) if relaxed else dns1123_subdomain_errors(name)
        )
        errors += [invalid((*path, index), DNS, name, message) for message in messages]
    return errors


def _list_error(
    path: FieldPath, values: list[JsonValue], detail: str, version: KubeVersion
) -> FieldError:
    """``Invalid value`` of a whole ``[]string``, printed as the release prints it."""
    return invalid_composite(
        path,
        DNS,
        version=version,
        value=values,
        go_syntax=go_string_slice(strings(values)),
        detail=detail,
    )


def _subdomain_with_underscore_errors(value: str) -> list[str]:
    """``IsDNS1123SubdomainWithUnderscore``: a subdomain whose labels may hold ``_``."""
    errors = [max_len_error(SUBDOMAIN_MAX)] if len(value) > SUBDOMAIN_MAX else []
    if not DNS1123_SUBDOMAIN_WITH_UNDERSCORE.matches(value):
        errors.append(DNS1123_SUBDOMAIN_WITH_UNDERSCORE.explained)
    return errors


def hostname_errors(pod_spec: JsonObject, path: FieldPath) -> list[FieldError]:
    """``hostname`` and ``subdomain``, when set, are DNS-1123 labels."""
    errors: list[FieldError] = []
    for field in ("hostname", "subdomain"):
        name = text(pod_spec.get(field))
        if name:
            errors += [
                invalid((*path, field), DNS, name, message)
                for message in dns1123_label_errors(name)
            ]
    return errors


def host_aliases_errors(aliases: JsonValue, path: FieldPath) -> list[FieldError]:
    """``ValidateHostAliases``: an IP address and DNS subdomain hostnames per entry."""
    errors: list[FieldError] = []
    for index, alias in objects(aliases):
        address = text(alias.get("ip"))
        if address is not None:
            errors += ip_errors(address, (*path, index, "ip"), DNS)
        for position, hostname in enumerate(as_list(alias.get("hostnames"))):
            if isinstance(hostname, str):
                errors += [
                    invalid((*path, index, "hostnames", position), DNS, hostname, message)
                    for message in dns1123_subdomain_errors(hostname)
                ]
    return errors


def ip_errors(value: str, path: FieldPath, code: str) -> list[FieldError]:
    """apimachinery's ``IsValidIP``: an IPv4 or IPv6 address, parsed sloppily."""
    return [] if is_sloppy_ip(value) else [invalid(path, code, value, _INVALID_IP)]


def is_sloppy_ip(value: str) -> bool:
    """Whether ``ParseIPSloppy`` accepts ``value``: Go 1.16's ``net.ParseIP``, which allows
    leading zeros in IPv4 octets (``010.0.0.1``) but no IPv6 zone (``fe80::1%eth0``)."""
    if re.fullmatch(r"[0-9]+(\.[0-9]+){3}", value):
        return all(int(octet) <= 255 for octet in value.split("."))  # noqa: PLR2004 - octet max
    if ":" not in value or "%" in value:
        return False
    try:
        ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return True
