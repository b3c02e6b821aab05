"""Matching, the CEL environment and ML-typical policies on the objects a TrainJob creates."""

from __future__ import annotations

from tests.checks.admission.policies.corpus import (
    JOB_CONTROLLER,
    binding,
    config_map,
    create,
    namespace,
    pod,
    policy,
)
from trainc.checks.admission.policies import (
    UPDATE,
    Request,
    UserInfo,
    Verdict,
    admit,
    cluster_from_objects,
    request_for,
    resource_for,
)
from trainc.model.json import JsonObject, JsonValue

DENY_ALL: JsonObject = {"expression": "false", "message": "no"}


def run(*objects: JsonObject, obj: JsonObject, user: UserInfo = JOB_CONTROLLER) -> Verdict:
    return admit(cluster_from_objects(list(objects)), create(obj, user))


def rules(**rule: object) -> dict[str, object]:
    base: dict[str, object] = {"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"]}
    return {"resourceRules": [{**base, **rule}]}


def job(name: str = "train-node-0", namespace_name: str = "ml") -> JsonObject:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace_name},
        "spec": {"template": {"spec": {"containers": []}}},
    }


def test_resource_rules_groups_versions_and_wildcards() -> None:
    assert run(policy(DENY_ALL, match=rules(resources=["jobs"])), binding(), obj=job()).refusal
    only_core = rules(apiGroups=[""], resources=["*"])
    assert run(policy(DENY_ALL, match=only_core), binding(), obj=job()).refusal is None
    batch_v1 = rules(apiGroups=["batch"], apiVersions=["v1"], resources=["jobs/*"])
    assert run(policy(DENY_ALL, match=batch_v1), binding(), obj=job()).refusal
    updates = rules(resources=["jobs"], operations=["UPDATE"])
    assert run(policy(DENY_ALL, match=updates), binding(), obj=job()).refusal is None


def test_jobset_and_both_podgroups_map_to_their_resources() -> None:
    jobset = resource_for("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert jobset is not None
    assert jobset.group_resource == "jobsets.jobset.x-k8s.io"
    for api_version in ("scheduling.x-k8s.io/v1alpha1", "scheduling.volcano.sh/v1beta1"):
        group = resource_for(api_version, "PodGroup")
        assert group is not None
        assert group.resource == "podgroups"
    namespace_resource = resource_for("v1", "Namespace")
    assert namespace_resource is not None
    assert not namespace_resource.namespaced


def test_exclude_resource_rules_and_resource_names() -> None:
    match = {
        **rules(resources=["pods"]),
        "excludeResourceRules": [
            {
                "apiGroups": [""],
                "apiVersions": ["*"],
                "operations": ["*"],
                "resources": ["pods"],
                "resourceNames": ["debug"],
            }
        ],
    }
    refusing = policy(DENY_ALL, match=match)
    assert run(refusing, binding(), obj=pod()).refusal
    assert run(refusing, binding(), obj=pod(name="debug")).refusal is None
    named = rules(resources=["pods"], resourceNames=["debug"])
    assert run(policy(DENY_ALL, match=named), binding(), obj=pod()).refusal is None


def test_scope() -> None:
    cluster_only = rules(resources=["*"], scope="Cluster")
    assert run(policy(DENY_ALL, match=cluster_only), binding(), obj=pod()).refusal is None
    assert run(policy(DENY_ALL, match=cluster_only), binding(), obj=namespace("ml")).refusal


def test_namespace_selector_matches_a_labelled_namespace() -> None:
    match = {
        **rules(resources=["pods"]),
        "namespaceSelector": {"matchLabels": {"tier": "training"}},
    }
    gated = policy(DENY_ALL, match=match)
    assert run(gated, binding(), namespace("ml", tier="training"), obj=pod()).refusal
    assert run(gated, binding(), namespace("ml", tier="serving"), obj=pod()).refusal is None
    by_name = {
        **rules(resources=["pods"]),
        "namespaceSelector": {
            "matchExpressions": [
                {
                    "key": "kubernetes.io/metadata.name",
                    "operator": "NotIn",
                    "values": ["kube-system"],
                }
            ]
        },
    }
    assert run(policy(DENY_ALL, match=by_name), binding(), namespace("ml"), obj=pod()).refusal


def test_namespace_selector_on_the_namespace_itself_and_unknown_namespaces() -> None:
    match = {**rules(resources=["*"]), "namespaceSelector": {"matchLabels": {"tier": "training"}}}
    gated = policy(DENY_ALL, match=match)
    assert run(gated, binding(), obj=namespace("ml", tier="training")).refusal
    verdict = run(gated, binding(), obj=pod())
    assert verdict.refusal is None
    assert [(n.policy, n.reason) for n in verdict.not_evaluated] == [
        ("denypolicy.example.com", "namespace 'ml' is not among the cluster's Namespaces")
    ]
    assert run(gated, obj=pod()).not_evaluated == []  # unbound: it could never act


def test_binding_match_resources_intersect_with_the_policy() -> None:
    narrowed = binding(
        matchResources={
            **rules(resources=["pods"]),
            "namespaceSelector": {"matchLabels": {"env": "prod"}},
        }
    )
    everything = policy(DENY_ALL, match=rules(resources=["*"]))
    assert run(everything, narrowed, namespace("ml", env="dev"), obj=pod()).refusal is None
    assert run(everything, narrowed, namespace("ml", env="prod"), obj=pod()).refusal
    assert run(everything, narrowed, namespace("ml", env="prod"), obj=job()).refusal is None


def test_object_selector() -> None:
    match = {**rules(resources=["pods"]), "objectSelector": {"matchLabels": {"team": "nlp"}}}
    gated = policy(DENY_ALL, match=match)
    assert run(gated, binding(), obj=pod(labels={"team": "nlp"})).refusal
    assert run(gated, binding(), obj=pod(labels={"team": "cv"})).refusal is None


def test_request_and_namespace_object_variables() -> None:
    checks = policy(
        {"expression": "request.operation == 'CREATE'"},
        {"expression": "request.kind.kind == 'Pod' && request.resource.resource == 'pods'"},
        {"expression": "request.namespace == 'ml' && request.name == 'train-node-0-0-x7k2p'"},
        {"expression": "request.userInfo.username.endsWith(':job-controller')"},
        {"expression": "oldObject == null && request.dryRun == false"},
        {"expression": "namespaceObject.metadata.labels['tier'] == 'training'"},
        {"expression": "params == null"},
    )
    verdict = run(checks, binding(), namespace("ml", tier="training"), obj=pod())
    assert verdict.denials == []
    assert verdict.not_evaluated == []


def test_old_object_on_update() -> None:
    immutable = policy(
        {"expression": "object.spec == oldObject.spec", "message": "spec is immutable"},
        match=rules(resources=["jobs"], operations=["UPDATE"]),
    )
    resource = resource_for("batch/v1", "Job")
    assert resource is not None
    changed = job()
    changed["spec"] = {"parallelism": 2}
    request = Request(resource, UPDATE, JOB_CONTROLLER, changed, old=job())
    verdict = admit(cluster_from_objects([immutable, binding()]), request)
    assert verdict.refusal is not None
    assert verdict.refusal.message == "spec is immutable"


def test_authorizer_is_not_evaluated_never_passed() -> None:
    asks = policy({"expression": "authorizer.group('').resource('pods').check('create').allowed()"})
    verdict = run(asks, binding(), obj=pod())
    assert verdict.refusal is None
    assert len(verdict.not_evaluated) == 1
    assert "authorizer" in verdict.not_evaluated[0].reason


def test_library_functions_are_evaluated_by_release() -> None:
    big = policy(
        {
            "expression": "object.spec.containers.all(c, !has(c.resources.limits.memory) || "
            "quantity(c.resources.limits.memory).isLessThan(quantity('64Gi')))",
            "message": "at most 64Gi per container",
        }
    )
    large = pod(resources={"limits": {"memory": "80Gi"}})
    verdict = run(big, binding(), obj=large)
    assert verdict.refusal is not None
    assert verdict.refusal.message == "at most 64Gi per container"
    assert verdict.not_evaluated == []
    # quantity() came with Kubernetes 1.28: on a 1.27 API server the policy does not compile.
    old = admit(cluster_from_objects([big, binding()], (1, 27)), create(large, JOB_CONTROLLER))
    assert old.refusal is not None
    assert "undeclared reference to 'quantity'" in old.refusal.message


def test_a_variable_holds_a_library_value() -> None:
    small = policy(
        {"expression": "variables.limit.isGreaterThan(quantity('1Gi'))"},
        variables=[{"name": "limit", "expression": "quantity('512Mi')"}],
    )
    verdict = run(small, binding(), obj=pod())
    assert verdict.refusal is not None
    assert verdict.not_evaluated == []


def test_format_library_is_evaluated() -> None:
    named = policy(
        {"expression": "!format.dns1123Label().validate(object.metadata.name).hasValue()"}
    )
    assert run(named, binding(), obj=pod(name="Node_0")).refusal is not None
    assert run(named, binding(), obj=pod()).refusal is None
    string_format = policy({"expression": "'%s'.format([object.metadata.name]) != ''"})
    assert run(string_format, binding(), obj=pod()).not_evaluated == []


def test_undeclarable_library_signature_is_not_evaluated() -> None:
    canonical = policy({"expression": "string(ip('10.0.0.1')) == '10.0.0.1'"})
    verdict = run(canonical, binding(), obj=pod())
    assert verdict.refusal is None
    assert verdict.not_evaluated[0].reason.startswith(
        "`string(ip('10.0.0.1')) == '10.0.0.1'` uses a Kubernetes CEL library signature "
        "trainc's engine cannot declare: "
    )


def test_compile_error_follows_failure_policy() -> None:
    verdict = run(policy({"expression": "object.spec.("}), binding(), obj=pod())
    assert verdict.refusal is not None
    assert verdict.refusal.message.startswith("compilation error: ")


def test_cost_over_the_limit_is_not_evaluated() -> None:
    many: list[JsonValue] = [{"name": f"c{i}", "image": "x"} for i in range(3000)]
    big = pod()
    spec = big["spec"]
    assert isinstance(spec, dict)
    spec["containers"] = many
    nested = policy(
        {
            "expression": "object.spec.containers.all(a, object.spec.containers.all(b, "
            "object.spec.containers.all(c, a.name != b.name || a == b)))"
        }
    )
    verdict = run(nested, binding(), obj=big)
    assert verdict.refusal is None
    assert "cost" in verdict.not_evaluated[0].reason


def test_approved_registry_policy_against_a_trainer_pod() -> None:
    """The platform's own refusal from the issue: images must come from the registry."""
    registry = policy(
        {
            "expression": "object.spec.containers.all(c, c.image.startsWith('registry.internal/'))",
            "message": "images must come from registry.internal",
        },
        name="approved-registry",
    )
    bound = binding(name="approved-registry-everywhere", policy_name="approved-registry")
    assert run(registry, bound, obj=pod()).refusal is None
    outside = pod(image="docker.io/pytorch/pytorch:2.4.0")
    verdict = run(registry, bound, obj=outside)
    assert verdict.forbidden(create(outside)) == (
        'pods "train-node-0-0-x7k2p" is forbidden: ValidatingAdmissionPolicy '
        "'approved-registry' with binding 'approved-registry-everywhere' denied request: "
        "images must come from registry.internal"
    )


def test_gpu_limit_policy_with_params_from_a_config_map() -> None:
    gpu_cap = policy(
        {
            "expression": "object.spec.containers.all(c, "
            "int(c.?resources.?limits[?'nvidia.com/gpu'].orValue('0')) "
            "<= int(params.data.maxGpusPerPod))",
            "messageExpression": "'at most ' + params.data.maxGpusPerPod + "
            "' GPUs per pod in namespace ' + request.namespace",
        },
        name="gpu-cap",
        paramKind={"apiVersion": "v1", "kind": "ConfigMap"},
    )
    bound = binding(
        name="gpu-cap-ml",
        policy_name="gpu-cap",
        paramRef={"name": "gpu-limits", "parameterNotFoundAction": "Deny"},
    )
    limits = config_map("gpu-limits", "ml", maxGpusPerPod="4")
    four = pod(resources={"limits": {"nvidia.com/gpu": "4"}})
    assert run(gpu_cap, bound, limits, obj=four).refusal is None
    eight = pod(resources={"limits": {"nvidia.com/gpu": "8"}})
    verdict = run(gpu_cap, bound, limits, obj=eight)
    assert verdict.refusal is not None
    assert verdict.refusal.text == (
        "ValidatingAdmissionPolicy 'gpu-cap' with binding 'gpu-cap-ml' denied request: "
        "at most 4 GPUs per pod in namespace ml"
    )
    elsewhere = pod(namespace_name="research", resources={"limits": {"nvidia.com/gpu": "8"}})
    verdict = run(gpu_cap, bound, limits, obj=elsewhere)
    assert verdict.refusal is not None
    assert "no params found for policy binding" in verdict.refusal.message


def test_gitops_identity_exempted_by_match_condition() -> None:
    exempt = policy(
        DENY_ALL,
        matchConditions=[
            {
                "name": "not-argocd",
                "expression": "request.userInfo.username != "
                "'system:serviceaccount:argocd:argocd-application-controller'",
            }
        ],
        match=rules(resources=["configmaps"]),
    )
    argocd = UserInfo("system:serviceaccount:argocd:argocd-application-controller")
    data = config_map("train-config", "ml")
    assert run(exempt, binding(), obj=data, user=argocd).refusal is None
    assert run(exempt, binding(), obj=data).refusal is not None


def test_first_refusal_is_by_policy_then_binding_name() -> None:
    verdict = run(
        policy(DENY_ALL, name="b-policy"),
        policy(DENY_ALL, name="a-policy"),
        binding(name="z", policy_name="a-policy"),
        binding(name="y", policy_name="a-policy"),
        binding(name="x", policy_name="b-policy"),
        obj=pod(),
    )
    assert [(d.policy, d.binding) for d in verdict.denials] == [
        ("a-policy", "y"),
        ("a-policy", "z"),
        ("b-policy", "x"),
    ]


def test_a_namespace_request_names_itself_and_has_no_namespace_object() -> None:
    checks = policy(
        {"expression": "request.namespace == 'ml' && request.name == 'ml'"},
        {"expression": "namespaceObject == null"},
        {"expression": "object.metadata.labels['kubernetes.io/metadata.name'] == 'ml'"},
        match=rules(resources=["namespaces"]),
    )
    labelled = namespace("ml")
    metadata = labelled["metadata"]
    assert isinstance(metadata, dict)
    metadata["labels"] = {"kubernetes.io/metadata.name": "ml"}
    verdict = run(checks, binding(), obj=labelled)
    assert verdict.denials == []
    assert verdict.not_evaluated == []


def test_request_for_picks_the_operation_and_knows_its_kinds() -> None:
    created = request_for(job(), JOB_CONTROLLER)
    assert created is not None
    assert (created.operation, created.resource.group_resource) == ("CREATE", "jobs.batch")
    updated = request_for(job(), JOB_CONTROLLER, old=job())
    assert updated is not None
    assert updated.operation == "UPDATE"
    deleted = request_for(None, JOB_CONTROLLER, old=job())
    assert deleted is not None
    assert deleted.operation == "DELETE"
    unknown: JsonObject = {"apiVersion": "example.com/v1", "kind": "Thing", "metadata": {}}
    assert request_for(unknown, JOB_CONTROLLER) is None


def test_delete_sees_the_old_object_and_no_object() -> None:
    guard = policy(
        {"expression": "object == null && oldObject.metadata.name != 'keep'", "message": "kept"},
        match=rules(resources=["jobs"], operations=["DELETE"]),
    )
    cluster = cluster_from_objects([guard, binding()])
    removing = request_for(None, JOB_CONTROLLER, old=job())
    assert removing is not None
    assert admit(cluster, removing).refusal is None
    keeping = request_for(None, JOB_CONTROLLER, old=job(name="keep"))
    assert keeping is not None
    refused = admit(cluster, keeping)
    assert refused.forbidden(keeping) == (
        'jobs.batch "keep" is forbidden: ValidatingAdmissionPolicy '
        "'denypolicy.example.com' with binding 'denybinding.example.com' denied request: kept"
    )


def test_an_evaluation_error_under_warn_is_a_warning() -> None:
    broken = policy({"expression": "object.spec.missing"})
    verdict = run(broken, binding(("Warn",)), obj=pod())
    assert verdict.refusal is None
    assert verdict.warnings == [
        "Validation failed for ValidatingAdmissionPolicy 'denypolicy.example.com' with binding "
        "'denybinding.example.com': expression 'object.spec.missing' resulted in error: "
        "no such key: missing"
    ]


def test_jobset_replicas_policy_in_test_namespaces() -> None:
    """The documentation's replica limit, on the JobSet Trainer creates, in labelled
    Namespaces only (https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/)."""
    limit = policy(
        {"expression": "object.spec.replicatedJobs.all(j, j.replicas <= 5)"},
        name="demo-policy.example.com",
        match=rules(apiGroups=["jobset.x-k8s.io"], resources=["jobsets"]),
    )
    bound = binding(
        name="demo-binding-test.example.com",
        policy_name="demo-policy.example.com",
        matchResources={"namespaceSelector": {"matchLabels": {"environment": "test"}}},
    )
    jobset: JsonObject = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "llama", "namespace": "ml"},
        "spec": {"replicatedJobs": [{"name": "node", "replicas": 8}]},
    }
    creator = UserInfo("system:serviceaccount:kubeflow-system:kubeflow-trainer-controller-manager")
    verdict = run(limit, bound, namespace("ml", environment="test"), obj=jobset, user=creator)
    assert verdict.forbidden(create(jobset)) == (
        'jobsets.jobset.x-k8s.io "llama" is forbidden: ValidatingAdmissionPolicy '
        "'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: "
        "failed expression: object.spec.replicatedJobs.all(j, j.replicas <= 5)"
    )
    elsewhere = run(limit, bound, namespace("ml", environment="prod"), obj=jobset, user=creator)
    assert elsewhere.refusal is None
