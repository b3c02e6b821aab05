"""A Job's selector and the labels that tie its pods to it, as the API server keeps them.

Unless ``manualSelector`` is true, the API server generates a Job's selector from the Job's
UID and labels its pods with ``job-name`` and ``controller-uid`` (legacy and
``batch.kubernetes.io/`` keys); a template that writes one of those labels with another
value, or a selector of its own, is refused (``validateGeneratedSelector``). A manual
selector must exist, be well formed and select the template's labels
(``ValidateJobSpec``). A runtime whose Job template keeps the ``selector`` of a standalone
Job manifest is refused this way, and the JobSet never gets its Jobs. The Job's UID is
unknown before it exists, so a label that would have to equal it is reported against
``<uid>``.
"""

from __future__ import annotations

from trainc.checks.workload.badvalues import go_string_map, invalid_composite
from trainc.checks.workload.fielderrors import FieldError, Key, invalid, required
from trainc.checks.workload.selectors import label_selector_errors, selector_matches
from trainc.checks.workload.version import KubeVersion
from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, JsonObject, JsonValue, as_object, copy_json

JOB_SELECTOR = Rule(
    "job.selector",
    Severity.ERROR,
    "the Job's selector is set without manualSelector, or is invalid",
    doc=RuleDoc(
        what="a `selector` without `manualSelector: true`, or one that does not match the template",
        source="`ValidateGeneratedSelector`, `validateJobSpec`",
        versions="all",
    ),
)


SELECTOR = JOB_SELECTOR.code

#: How messages show the Job's UID, which the API server assigns on create.
_UID = "<uid>"
#: Stand-ins for the UID and (when unknown) the name while matching selectors: valid
#: label values that no user-written label or selector holds.
_UID_STAND_IN = "trainc-unknown-uid"
_NAME_STAND_IN = "trainc-unknown-name"
_LEGACY_UID_LABEL = "controller-uid"
_LEGACY_NAME_LABEL = "job-name"
_UID_LABEL = "batch.kubernetes.io/controller-uid"
_NAME_LABEL = "batch.kubernetes.io/job-name"


def generated_selector_errors(
    spec: JsonObject, name: str | None, version: KubeVersion
) -> list[FieldError]:
    """``validateGeneratedSelector``; ``name`` is the Job's (None when unknown, which
    leaves the ``job-name`` labels unchecked)."""
    if spec.get("manualSelector") is True:
        return []
    return _generated_selector_errors(
        spec, name, _generated_selector(spec.get("selector")), version
    )


def selector_errors(spec: JsonObject, name: str | None, version: KubeVersion) -> list[FieldError]:
    """``ValidateJobSpec``'s selector rules: set, well formed, selecting the template."""
    manual = spec.get("manualSelector") is True
    selector = spec.get("selector") if manual else _generated_selector(spec.get("selector"))
    errors: list[FieldError] = []
    if selector is None:
        errors.append(required(("spec", "selector"), SELECTOR))
    else:
        errors += label_selector_errors(spec.get("selector"), ("spec", "selector"), SELECTOR)
    if selector_matches(selector, _template_labels(spec, name, manual=manual)) is False:
        detail = "`selector` does not match template `labels`"
        errors.append(
            _labels_error(("spec", "template", "metadata", "labels"), spec, detail, version)
        )
    return errors


def _user_labels(spec: JsonObject) -> JsonValue:
    return as_object(as_object(spec.get("template")).get("metadata")).get("labels")


def _template_labels(spec: JsonObject, name: str | None, *, manual: bool) -> dict[str, str]:
    """The pod template's labels once the API server generated its own (unless the Job
    selects its pods by a manual selector)."""
    labels = {k: v for k, v in as_object(_user_labels(spec)).items() if isinstance(v, str)}
    if not manual:
        for key in (_LEGACY_NAME_LABEL, _NAME_LABEL):
            labels.setdefault(key, name or _NAME_STAND_IN)
        for key in (_LEGACY_UID_LABEL, _UID_LABEL):
            labels.setdefault(key, _UID_STAND_IN)
    return labels


def _generated_selector(selector: JsonValue) -> JsonValue:
    """The selector ``generateSelector`` leaves: the user's, plus the controller UID."""
    generated = copy_json(selector) if isinstance(selector, dict) else {}
    match_labels = generated.get("matchLabels")
    if not isinstance(match_labels, dict):
        match_labels = generated["matchLabels"] = {}
    match_labels.setdefault(_UID_LABEL, _UID_STAND_IN)
    return generated


def _labels_error(
    path: FieldPath, spec: JsonObject, detail: str, version: KubeVersion
) -> FieldError:
    """``Invalid value`` of the template's labels (a ``map[string]string``)."""
    labels = as_object(_user_labels(spec))
    text_labels = {key: value for key, value in labels.items() if isinstance(value, str)}
    return invalid_composite(
        path,
        SELECTOR,
        version=version,
        value=labels,
        go_syntax=go_string_map(text_labels),
        detail=detail,
    )


def _generated_selector_errors(
    spec: JsonObject, name: str | None, selector: JsonValue, version: KubeVersion
) -> list[FieldError]:
    """``validateGeneratedSelector``: labels the API server generates must keep their
    values, and a selector it did not generate is refused without ``manualSelector``."""
    errors: list[FieldError] = []
    user_labels = as_object(_user_labels(spec))
    expected = {
        _LEGACY_UID_LABEL: _UID,
        _LEGACY_NAME_LABEL: name,
        _UID_LABEL: _UID,
        _NAME_LABEL: name,
    }
    for key, value in expected.items():
        given = user_labels.get(key)
        if isinstance(given, str) and value is not None and given != value:
            at = ("spec", "template", "metadata", "labels", Key(key))
            errors.append(_labels_error(at, spec, f"must be '{value}'", version))
    generated = {
        key: _UID_STAND_IN if value == _UID else value or _NAME_STAND_IN
        for key, value in expected.items()
    }
    if selector_matches(selector, generated) is False:
        errors.append(
            invalid(
                ("spec", "selector"),
                SELECTOR,
                spec.get("selector"),
                "`selector` not auto-generated",
            )
        )
    return errors
