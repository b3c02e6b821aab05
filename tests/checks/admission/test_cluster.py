"""The cluster's objects of a run: a small platform directory read into ClusterObjects.

Each family's part is checked through the family's own entry point, so that the objects
gathered are the ones its verdicts need: the Pod Security policy per namespace (with the
``cluster`` section's defaults and exemptions), a ValidatingAdmissionPolicy with its
binding and ConfigMap parameter refusing a pod, a LimitRange and a ResourceQuota
refusing it, Kueue's queues judging a JobSet. Objects the API server would refuse are
findings at their line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks.admission.kueue.test_admission import jobset
from tests.support.manifests import write
from trainc.app import load_config
from trainc.checks.admission.cluster import (
    EMPTY,
    ClusterObjects,
    ClusterRead,
    PriorityClass,
    cluster_objects,
    read_cluster,
)
from trainc.checks.admission.kueue import admit as kueue_admit
from trainc.checks.admission.limit_ranges import admit_pod
from trainc.checks.admission.pod_security import Level, LevelVersion
from trainc.checks.admission.pod_security.admission import judge
from trainc.checks.admission.policies import admit as policy_admit
from trainc.checks.admission.policies import request_for
from trainc.checks.admission.resource_quotas import Target
from trainc.checks.admission.resource_quotas import admit as quota_admit
from trainc.config.settings import (
    ClusterSettings,
    Identity,
    PodSecurityDefaults,
    PodSecurityExemptions,
    RepoConfig,
)
from trainc.load.cluster_files import (
    ClusterDocuments,
    cluster_documents,
    find_cluster_files,
    read_cluster_file,
)
from trainc.load.inputs import load_inputs
from trainc.model.json import JsonObject

NAMESPACES = """\
apiVersion: v1
kind: Namespace
metadata:
  name: research
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: v1.28
---
apiVersion: v1
kind: Namespace
metadata:
  name: sandbox
  labels:
    team: ml
"""

POLICIES = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: approved-registry
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
      - apiGroups: [""]
        apiVersions: [v1]
        operations: [CREATE]
        resources: [pods]
  validations:
    - expression: "object.spec.containers.all(c, c.image.startsWith(params.data.registry))"
      message: images must come from registry.internal
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: approved-registry-binding
spec:
  policyName: approved-registry
  validationActions: [Deny]
  paramRef:
    name: registry
    namespace: platform
    parameterNotFoundAction: Deny
"""

#: The policy's parameter, kept among the inputs as a GitOps repository keeps it.
PARAMS = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: registry
  namespace: platform
data:
  registry: registry.internal/
"""

LIMITS = """\
apiVersion: v1
kind: LimitRange
metadata:
  name: cpu-bounds
  namespace: research
spec:
  limits:
    - type: Container
      max: {cpu: "8"}
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: gpus
spec:
  hard:
    requests.nvidia.com/gpu: "4"
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: high
value: 1000
"""

KUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: a100
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: gpu
spec:
  namespaceSelector:
    matchLabels: {team: ml}
  resourceGroups:
    - coveredResources: [cpu, memory, nvidia.com/gpu]
      flavors:
        - name: a100
          resources:
            - {name: cpu, nominalQuota: 256}
            - {name: memory, nominalQuota: 2Ti}
            - {name: nvidia.com/gpu, nominalQuota: 8}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: user-queue
  namespace: ml
spec:
  clusterQueue: gpu
"""

#: The GitOps repository's own Namespace, among the inputs.
INPUT_NAMESPACE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: ml
  labels:
    team: ml
    pod-security.kubernetes.io/warn: baseline
"""

SETTINGS = ClusterSettings(
    manifests=("platform/**/*.yaml",),
    pod_security_defaults=PodSecurityDefaults(enforce="baseline", warn="restricted"),
    pod_security_exemptions=PodSecurityExemptions(runtime_classes=("kata",)),
    gitops=Identity("system:serviceaccount:flux-system:kustomize-controller", ("flux",)),
)


def repository(root: Path, extra: dict[str, str] | None = None) -> None:
    (root / ".git").mkdir()
    write(root, "platform/namespaces.yaml", NAMESPACES)
    write(root, "platform/policies.yaml", POLICIES)
    write(root, "platform/limits.yaml", LIMITS)
    write(root, "platform/kueue.yaml", KUEUE)
    write(root, "params/registry.yaml", PARAMS)
    write(root, "namespaces/ml.yaml", INPUT_NAMESPACE)
    for path, text in (extra or {}).items():
        write(root, path, text)


def gathered(
    root: Path, settings: ClusterSettings = SETTINGS
) -> tuple[ClusterObjects, ClusterDocuments]:
    """The run's cluster, loaded as the engine would: inputs first, then the manifests."""
    config = RepoConfig(root=root, namespace="research", cluster=settings)
    inputs = load_inputs([root], config=config)
    files = find_cluster_files(root, settings.manifests)
    documents = cluster_documents(
        files,
        inputs=inputs.sources,
        read=lambda path: read_cluster_file(root, path, config.limits),
        limits=config.limits,
    )
    return cluster_objects(settings, documents, default_namespace=config.namespace), documents


def pod(image: str, cpu: str = "1") -> JsonObject:
    container: JsonObject = {
        "name": "node",
        "image": image,
        "resources": {"requests": {"cpu": cpu}, "limits": {"cpu": cpu}},
    }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train-node-0-0", "namespace": "research"},
        "spec": {"containers": [container]},
    }


def test_the_platform_directory_and_the_inputs_make_one_cluster(tmp_path: Path) -> None:
    repository(tmp_path)
    cluster, documents = gathered(tmp_path)

    assert cluster.configured
    assert not cluster.empty
    assert cluster.findings == ()
    assert documents.diagnostics == ()
    assert sorted(cluster.namespaces) == ["ml", "research", "sandbox"]
    assert cluster.namespaces["ml"]["team"] == "ml"
    # Labels win over the cluster section's defaults, mode by mode.
    research = cluster.pod_security_for("research")
    assert research.enforce == LevelVersion(Level.RESTRICTED, (1, 28))
    assert research.warn == LevelVersion(Level.RESTRICTED, "latest")
    sandbox = cluster.pod_security_for("sandbox")
    assert sandbox.enforce == LevelVersion(Level.BASELINE)
    assert sandbox.warn == LevelVersion(Level.RESTRICTED)
    ml = cluster.pod_security_for("ml")
    assert (ml.enforce.level, ml.warn.level) == (Level.BASELINE, Level.BASELINE)
    # A namespace the repository does not declare is unlabelled: the defaults.
    assert cluster.pod_security_for("elsewhere") == cluster.pod_security_defaults
    assert cluster.exemptions.runtime_classes == frozenset({"kata"})
    assert cluster.priority_classes == {"high": PriorityClass("high", 1000)}
    assert cluster.creators.gitops.username.endswith(":kustomize-controller")
    assert cluster.creators.gitops.groups == ("flux",)
    assert cluster.creators.job_controller.username == (
        "system:serviceaccount:kube-system:job-controller"
    )


def test_pod_security_judges_with_the_namespaces_policy(tmp_path: Path) -> None:
    repository(tmp_path)
    cluster, _ = gathered(tmp_path)
    privileged = pod("registry.internal/train:1")["spec"]
    assert isinstance(privileged, dict)
    privileged["hostNetwork"] = True
    verdict = judge(
        cluster.pod_security_for("research"),
        {"name": "train-node-0-0"},
        privileged,
        release=(1, 33),
        namespace="research",
        username=cluster.creators.job_controller.username,
        exemptions=cluster.exemptions,
    )
    assert verdict.refusal is not None
    assert verdict.refusal.startswith('violates PodSecurity "restricted:v1.28": host namespaces')
    exempt = judge(
        cluster.pod_security_for("research"),
        {},
        {**privileged, "runtimeClassName": "kata"},
        release=(1, 33),
        exemptions=cluster.exemptions,
    )
    assert exempt.exempt == "runtimeClass"


def test_the_policy_finds_its_binding_and_its_parameter_among_the_inputs(
    tmp_path: Path,
) -> None:
    repository(tmp_path)
    cluster, _ = gathered(tmp_path)
    assert [policy.name for policy in cluster.policies.policies] == ["approved-registry"]
    assert [binding.name for binding in cluster.policies.bindings] == ["approved-registry-binding"]
    user = cluster.creators.job_controller
    refused = request_for(pod("docker.io/pytorch/pytorch:2"), user)
    admitted = request_for(pod("registry.internal/train:1"), user)
    assert refused is not None
    assert admitted is not None
    verdict = policy_admit(cluster.policies, refused)
    assert verdict.forbidden(refused) == (
        "pods \"train-node-0-0\" is forbidden: ValidatingAdmissionPolicy 'approved-registry' "
        "with binding 'approved-registry-binding' denied request: images must come from "
        "registry.internal"
    )
    assert policy_admit(cluster.policies, admitted).refusal is None


def test_limit_ranges_and_quotas_by_namespace_with_the_default_filled_in(
    tmp_path: Path,
) -> None:
    repository(tmp_path)
    cluster, _ = gathered(tmp_path)
    assert [lr.name for lr in cluster.limit_ranges["research"]] == ["cpu-bounds"]
    # The quota names no namespace: the run's default namespace (research) holds it.
    assert [quota.name for quota in cluster.quotas["research"]] == ["gpus"]
    spec = pod("registry.internal/train:1", cpu="16")["spec"]
    assert isinstance(spec, dict)
    decision = admit_pod(list(cluster.limit_ranges["research"]), spec, (1, 33))
    assert decision.refusal == "maximum cpu usage per Container is 8, but limit is 16"
    gpus: JsonObject = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "research"},
        "spec": {
            "containers": [
                {
                    "name": "node",
                    "resources": {
                        "requests": {"nvidia.com/gpu": "8"},
                        "limits": {"nvidia.com/gpu": "8"},
                    },
                }
            ]
        },
    }
    refusal = quota_admit(list(cluster.quotas["research"]), Target("", "pods", gpus), (1, 33))
    assert refusal is not None
    assert refusal.message.startswith("exceeded quota: gpus, requested: requests.nvidia.com/gpu=8")


def test_kueue_judges_a_jobset_against_the_platforms_queues(tmp_path: Path) -> None:
    repository(tmp_path)
    cluster, _ = gathered(tmp_path)
    assert [queue.name for queue in cluster.kueue.local_queues] == ["user-queue"]
    verdict = kueue_admit(jobset(), cluster.kueue)
    assert verdict is not None
    assert "current podset request (16) > maximum capacity (8)" in verdict.message
    fits = kueue_admit(jobset(nodes=2), cluster.kueue)
    assert fits is not None
    assert fits.admissible


BROKEN = """\
apiVersion: v1
kind: Namespace
metadata:
  name: bad
  labels:
    pod-security.kubernetes.io/enforce: strict
---
apiVersion: v1
kind: ResourceQuota
metadata:
  name: cpu
  namespace: research
spec:
  hard:
    requests.cpu: lots
---
apiVersion: v1
kind: LimitRange
metadata:
  namespace: research
spec:
  limits: []
---
apiVersion: v1
kind: Namespace
metadata:
  name: sandbox
  labels:
    team: vision
"""


def test_objects_the_api_server_refuses_are_findings_at_their_line(tmp_path: Path) -> None:
    repository(tmp_path, {"platform/team/broken.yaml": BROKEN})
    cluster, _ = gathered(tmp_path)
    found = [(d.code, d.file, d.line, d.message) for d in cluster.findings]
    assert [(code, file, line) for code, file, line, _ in found] == [
        ("cluster.invalid-object", "platform/team/broken.yaml", 6),
        ("cluster.invalid-object", "platform/team/broken.yaml", 15),
        ("cluster.invalid-object", "platform/team/broken.yaml", 19),
        ("cluster.invalid-object", "platform/team/broken.yaml", 27),
    ]
    assert found[0][3] == (
        'Namespace "bad" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: '
        'Invalid value: "strict": must be one of privileged, baseline, restricted'
    )
    assert "'lots' is not a Kubernetes quantity" in found[1][3]
    assert "metadata.name: Required value" in found[2][3]
    assert found[3][3].startswith(
        "Namespace 'sandbox' is already declared at platform/namespaces.yaml:12"
    )
    # Refused objects are left out; the first declaration wins.
    assert "bad" not in cluster.namespaces
    assert [quota.name for quota in cluster.quotas["research"]] == ["gpus"]
    assert cluster.namespaces["sandbox"]["team"] == "ml"


def test_an_identical_repeat_is_one_object(tmp_path: Path) -> None:
    repository(tmp_path, {"jobs/ns.yaml": NAMESPACES})
    cluster, _ = gathered(tmp_path)
    assert cluster.findings == ()
    assert sorted(cluster.namespaces) == ["ml", "research", "sandbox"]


def test_a_list_is_read_item_by_item(tmp_path: Path) -> None:
    listed = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "  - apiVersion: v1\n    kind: Namespace\n    metadata: {name: a}\n"
        "  - apiVersion: v1\n    kind: Namespace\n    metadata: {labels: {x: y}}\n"
    )
    write(tmp_path, "platform/list.yaml", listed)
    settings = ClusterSettings(manifests=("platform/*.yaml",))
    cluster, _ = gathered(tmp_path, settings)
    assert list(cluster.namespaces) == ["a"]
    ((line, path),) = [(d.line, d.field_path) for d in cluster.findings]
    assert (line, path) == (9, "items[1].metadata")


def test_without_the_section_nothing_is_read() -> None:
    assert cluster_objects(None, None, default_namespace="default") is EMPTY
    assert EMPTY.empty
    assert not EMPTY.configured
    assert EMPTY.pod_security_for("any").fully_privileged
    # A documents value is ignored too: the cluster is unknown without the section.
    assert cluster_objects(None, ClusterDocuments(), default_namespace="x") is EMPTY


@pytest.mark.parametrize("globs", [(), ("platform/**/*.yaml",)])
def test_an_empty_platform_gives_an_empty_cluster(tmp_path: Path, globs: tuple[str, ...]) -> None:
    settings = ClusterSettings(manifests=globs)
    cluster, documents = gathered(tmp_path, settings)
    assert cluster.configured
    assert cluster.empty
    assert documents == ClusterDocuments()


def test_one_call_reads_the_cluster_of_a_run(tmp_path: Path) -> None:
    repository(tmp_path, {"platform/team/broken.yaml": BROKEN})
    write(
        tmp_path,
        "trainc.yaml",
        "namespace: research\n"
        "cluster:\n"
        "  manifests: [platform/**/*.yaml, platfrom/*.yaml]\n"
        "  podSecurity:\n"
        "    defaults: {enforce: baseline}\n",
    )
    result = load_config(cwd=tmp_path)
    assert result.config is not None
    inputs = load_inputs([tmp_path], config=result.config)
    read = read_cluster(result.config, inputs=inputs.sources, config_document=result.document)
    assert [(d.code, d.file, d.line) for d in read.diagnostics] == [
        ("config.cluster-unmatched", "trainc.yaml", 3),
        ("cluster.invalid-object", "platform/team/broken.yaml", 6),
        ("cluster.invalid-object", "platform/team/broken.yaml", 15),
        ("cluster.invalid-object", "platform/team/broken.yaml", 19),
        ("cluster.invalid-object", "platform/team/broken.yaml", 27),
    ]
    # The platform directory is among the inputs too: nothing was read twice.
    assert read.sources == {}
    assert read.objects.pod_security_for("sandbox").enforce.level == Level.BASELINE
    assert [quota.name for quota in read.objects.quotas["research"]] == ["gpus"]


def test_a_run_without_the_section_reads_nothing(tmp_path: Path) -> None:
    config = RepoConfig(root=tmp_path / "absent")
    assert read_cluster(config, inputs={}) == ClusterRead()
    assert read_cluster(config, inputs={}).objects is EMPTY


def test_a_policy_under_an_older_version_is_said_not_applied(tmp_path: Path) -> None:
    older = (
        "apiVersion: admissionregistration.k8s.io/v1beta1\n"
        "kind: ValidatingAdmissionPolicy\n"
        "metadata:\n"
        "  name: no-latest\n"
        "spec:\n"
        "  validations:\n"
        "    - expression: \"!object.spec.containers.exists(c, c.image.endsWith(':latest'))\"\n"
    )
    repository(tmp_path, {"platform/older.yaml": older})
    cluster, _ = gathered(tmp_path)
    [finding] = [d for d in cluster.findings if d.code == "cluster.unread-version"]
    assert (finding.file, finding.line, finding.severity.value) == (
        "platform/older.yaml",
        1,
        "warning",
    )
    assert finding.message == (
        "ValidatingAdmissionPolicy 'no-latest' is under admissionregistration.k8s.io/v1beta1, "
        "which trainc does not judge: it is not applied to any object"
    )
    assert finding.hint == "write it as admissionregistration.k8s.io/v1"
    assert "no-latest" not in {policy.name for policy in cluster.policies.policies}
