import pytest

from tests.support.builders import (
    cross_object,
    defaulted,
    located,
    make_runtime,
    make_trainjob,
    object_from_yaml,
)
from trainc.checks.webhooks.lifecycle import check_deprecated_runtime, check_runtime_ttl
from trainc.diagnostics import Severity

SHORT_TTL = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
spec:
  ttlSecondsAfterFinished: 30
  mlPolicy: {torch: {}}
  template: {spec: {replicatedJobs: []}}
"""


def test_short_ttl_warns_at_the_field():
    [finding] = check_runtime_ttl(defaulted(object_from_yaml(SHORT_TTL)))

    assert (finding.code, finding.severity, finding.field_path, finding.line) == (
        "xobj.ttl-short",
        Severity.WARNING,
        "spec.ttlSecondsAfterFinished",
        6,
    )


@pytest.mark.parametrize("ttl", [60, 86400])
def test_ttl_of_a_minute_or_more_is_fine(ttl):
    assert check_runtime_ttl(make_runtime(ttlSecondsAfterFinished=ttl)) == []
    assert check_runtime_ttl(make_runtime()) == []


def test_ttl_warning_is_a_webhook_check_and_respects_the_exemption():
    exempt = make_runtime(
        ttlSecondsAfterFinished=0, labels={"trainer.kubeflow.org/webhook-validation": "disabled"}
    )

    assert cross_object([exempt]) == []


def test_trainjob_on_a_deprecated_runtime_gets_a_warning():
    runtime = make_runtime(labels={"trainer.kubeflow.org/support": "deprecated"})

    findings = check_deprecated_runtime(make_trainjob(), runtime)

    assert located(findings) == [("xobj.runtime-deprecated", "spec.runtimeRef.name")]
    assert findings[0].severity is Severity.WARNING


def test_supported_runtime_gets_no_warning():
    runtime = make_runtime(labels={"trainer.kubeflow.org/framework": "torch"})

    assert check_deprecated_runtime(make_trainjob(), runtime) == []
