import pytest

from trainc.checks.workload.fielderrors import FieldError
from trainc.checks.workload.resources import check_container_resources, check_pod_resources
from trainc.model.json import JsonObject, JsonValue

CTR = ("spec", "containers", 0, "resources")
AT = "spec.containers[0].resources"
V33, V34 = (1, 33), (1, 34)
GPU = "nvidia.com/gpu"


def findings(errors: list[FieldError]) -> list[tuple[str, str]]:
    return [(error.code, error.message()) for error in errors]


@pytest.mark.parametrize(
    ("resources", "version", "expected"),
    [
        # Valid: a limit alone (the Pod's request becomes the limit), milli-rounded amounts.
        ({"limits": {GPU: 4, "cpu": "8", "memory": "64Gi"}}, V33, []),
        (
            {"requests": {GPU: "4", "cpu": "0.0001"}, "limits": {GPU: 4000, "cpu": "1m"}},
            V33,
            [
                (
                    "pod.resource-limits",
                    f'{AT}.requests: Invalid value: "4": must be equal to {GPU} limit of 4k',
                ),
            ],
        ),
        ({"requests": {GPU: 2, "cpu": "1.5"}, "limits": {GPU: "2", "cpu": 2}}, V33, []),
        (
            {
                "requests": {"hugepages-2Mi": "4Mi", "memory": "1Gi"},
                "limits": {"hugepages-2Mi": "4Mi"},
            },
            V33,
            [],
        ),
        (None, V33, []),
        ("not-a-map", V33, []),
        ({"limits": {"cpu": "lots"}}, V33, []),
        # The GPU mistakes of the brief.
        (
            {"requests": {GPU: 2}, "limits": {GPU: 4}},
            V33,
            [
                (
                    "pod.resource-limits",
                    f'{AT}.requests: Invalid value: "2": must be equal to {GPU} limit of 4',
                ),
            ],
        ),
        (
            {"requests": {GPU: 1}},
            V33,
            [
                (
                    "pod.resource-limits",
                    f"{AT}.limits: Required value: Limit must be set for non "
                    "overcommitable resources",
                ),
            ],
        ),
        (
            {"requests": {"cpu": "3"}, "limits": {"cpu": 2}},
            V33,
            [
                (
                    "pod.resource-limits",
                    f'{AT}.requests: Invalid value: "3": must be less than or '
                    "equal to cpu limit of 2",
                ),
            ],
        ),
        (
            {"requests": {"memory": "1.5Gi"}, "limits": {"memory": "1Gi"}},
            V33,
            [
                (
                    "pod.resource-limits",
                    f'{AT}.requests: Invalid value: "1536Mi": must be less than or '
                    "equal to memory limit of 1Gi",
                ),
            ],
        ),
        (
            {"requests": {"cpu": "-1"}},
            V33,
            [
                (
                    "pod.resource-quantity",
                    f'{AT}.requests[cpu]: Invalid value: "-1": must be greater than or equal to 0',
                ),
            ],
        ),
        # Extended resources are whole; the value is named as a quantity, by its text, in
        # every release (those before 1.34 print Go's dump of the struct, which names none).
        (
            {"limits": {GPU: "0.5"}},
            V34,
            [
                (
                    "pod.resource-quantity",
                    f'{AT}.limits[{GPU}]: Invalid value: "500m": must be an integer',
                ),
            ],
        ),
        (
            {"limits": {GPU: 1.5}},
            V33,
            [
                (
                    "pod.resource-quantity",
                    f'{AT}.limits[{GPU}]: Invalid value: "1500m": must be an integer',
                ),
            ],
        ),
        # Names.
        (
            {"limits": {"gpu": 1}},
            V33,
            [
                (
                    "pod.resource-name",
                    f'{AT}.limits[gpu]: Invalid value: "gpu": must be a standard '
                    "resource type or fully qualified",
                ),
                (
                    "pod.resource-name",
                    f'{AT}.limits[gpu]: Invalid value: "gpu": must be a standard '
                    "resource for containers",
                ),
            ],
        ),
        (
            {"limits": {"pods": 1}},
            V33,
            [
                (
                    "pod.resource-name",
                    f'{AT}.limits[pods]: Invalid value: "pods": must be a standard '
                    "resource for containers",
                ),
            ],
        ),
        (
            {"limits": {"requests.example.com/x": 1}},
            V33,
            [
                (
                    "pod.resource-name",
                    f"{AT}.limits[requests.example.com/x]: Invalid value: "
                    '"requests.example.com/x": doesn\'t follow extended resource '
                    "name standard",
                ),
            ],
        ),
        ({"limits": {"example.com/gpu": 1, "kubernetes.io/foo": 1}}, V33, []),
        # Hugepages: whole pages, with cpu or memory beside them.
        (
            {"limits": {"hugepages-2Mi": "3Mi", "memory": "1Gi"}},
            V33,
            [
                (
                    "pod.hugepages",
                    f'{AT}.limits[hugepages-2Mi]: Invalid value: "3Mi": 3Mi is not '
                    "positive integer multiple of hugepages-2Mi",
                ),
            ],
        ),
        (
            {"limits": {"hugepages-1Gi": "2Gi"}},
            V33,
            [
                ("pod.hugepages", f"{AT}: Forbidden: HugePages require cpu or memory"),
            ],
        ),
        (
            {"requests": {"hugepages-1Gi": "1Gi", "cpu": 1}, "limits": {"hugepages-1Gi": "2Gi"}},
            V33,
            [
                (
                    "pod.resource-limits",
                    f'{AT}.requests: Invalid value: "1Gi": must be equal to '
                    "hugepages-1Gi limit of 2Gi",
                ),
            ],
        ),
        (
            {"limits": {"hugepages-x": "1Gi", "cpu": 1}},
            V33,
            [
                (
                    "pod.hugepages",
                    f'{AT}.limits[hugepages-x]: Invalid value: "1Gi": 1Gi is not '
                    "positive integer multiple of hugepages-x",
                ),
            ],
        ),
    ],
)
def test_container_resources(resources, version, expected):
    assert findings(check_container_resources(resources, CTR, version, pod_claims=())) == expected


CLAIMS: list[JsonValue] = [
    {"name": "a"},
    {"name": "a"},
    {"name": "b", "request": "r"},
    {"name": "b"},
    {},
    {"name": "c", "request": "R"},
]


def test_claims_name_pod_resource_claims_once():
    errors = check_container_resources({"claims": CLAIMS}, CTR, V34, pod_claims=["c", "b"])
    assert findings(errors) == [
        (
            "pod.resource-claims",
            f'{AT}.claims[0]: Not found: "a": must be one of the names in '
            "pod.spec.resourceClaims: b, c",
        ),
        ("pod.resource-claims", f'{AT}.claims[1]: Duplicate value: "a"'),
        (
            "pod.resource-claims",
            f'{AT}.claims[1]: Not found: "a": must be one of the names in '
            "pod.spec.resourceClaims: b, c",
        ),
        ("pod.resource-claims", f'{AT}.claims[3]: Duplicate value: "b"'),
        ("pod.resource-claims", f"{AT}.claims[4]: Required value"),
        (
            "pod.resource-claims",
            f'{AT}.claims[5].request: Invalid value: "R": a lowercase '
            "RFC 1123 label must consist of lower case alphanumeric "
            "characters or '-', and must start and end with an "
            "alphanumeric character (e.g. 'my-name' or '123-abc')",
        ),
    ]


def test_claims_against_no_pod_claims_and_before_dra():
    claims: JsonObject = {"claims": [{"name": "gpu"}]}
    assert findings(check_container_resources(claims, CTR, V34, pod_claims=[])) == [
        (
            "pod.resource-claims",
            f'{AT}.claims[0]: Not found: "gpu": must be one of the names '
            "in pod.spec.resourceClaims which is empty",
        ),
    ]
    assert check_container_resources(claims, CTR, V33, pod_claims=[]) == []
    assert check_container_resources(claims, CTR, V34, pod_claims=["gpu"]) == []


POD: JsonObject = {
    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}, "limits": {"cpu": "4"}},
    "initContainers": [
        {"name": "sidecar", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
        {"name": "init", "resources": {"limits": {"cpu": "3"}}},
    ],
    "containers": [
        {
            "name": "node",
            "resources": {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "5"}},
        }
    ],
}


def test_pod_level_resources_cover_the_containers():
    # init peak: 3 (its limit, as the Pod's request) + 500m sidecar = 3500m > 1500m.
    assert findings(check_pod_resources(POD, ("spec",), V34)) == [
        (
            "pod.pod-resources",
            'spec.resources.requests[cpu]: Invalid value: "2": must be '
            "greater than or equal to aggregate container requests of "
            "3500m",
        ),
        (
            "pod.pod-resources",
            "spec.resources.containers[0][cpu].limits: Invalid value: "
            '"5": must be less than or equal to pod limits of 4',
        ),
    ]
    assert check_pod_resources(POD, ("spec",), V33) == []


def test_pod_level_resources_names_and_claims():
    spec: JsonObject = {
        "resourceClaims": [{"name": "gpus"}],
        "resources": {"claims": [{"name": "gpus"}], "limits": {GPU: 1, "cpu": 1}},
        "containers": [{"resources": {"requests": {GPU: 1}}}],
    }
    assert findings(check_pod_resources(spec, ("spec",), V34)) == [
        (
            "pod.pod-resources",
            "spec.resources.claims: Forbidden: claims cannot be set for Resources at pod-level",
        ),
        (
            "pod.resource-name",
            "spec.resources.limits[nvidia.com/gpu]: Unsupported value: "
            '"nvidia.com/gpu": supported values: "cpu", "hugepages-", '
            '"memory"',
        ),
    ]
    valid: JsonObject = {
        "resources": {"requests": {"cpu": 2}, "limits": {"memory": "8Gi"}},
        "containers": [{"resources": {"requests": {"cpu": 2, "memory": "16Gi"}}}],
    }
    assert check_pod_resources(valid, ("spec",), V34) == []


def test_overhead_is_judged_as_container_limits():
    spec: JsonObject = {"overhead": {"cpu": "-250m", "hugepages-2Mi": "2Mi"}}
    assert findings(check_pod_resources(spec, ("spec",), V33)) == [
        (
            "pod.resource-quantity",
            'spec.overhead.limits[cpu]: Invalid value: "-250m": must be greater than or equal to 0',
        ),
    ]
    assert findings(
        check_pod_resources({"overhead": {"hugepages-2Mi": "2Mi"}}, ("spec",), V33)
    ) == [
        ("pod.hugepages", "spec.overhead: Forbidden: HugePages require cpu or memory"),
    ]
    assert (
        check_pod_resources({"overhead": {"cpu": "250m", "memory": "120Mi"}}, ("spec",), V33) == []
    )


def test_the_advice_names_the_resource_and_the_amount_to_write():
    errors = check_container_resources(
        {"requests": {GPU: "2", "example.com/fpga": "1.5"}}, CTR, V33, pod_claims=()
    )
    missing = next(error for error in errors if error.code == "pod.resource-limits")
    fraction = next(error for error in errors if error.code == "pod.resource-quantity")
    assert (missing.code, missing.hint) == (
        "pod.resource-limits",
        f"{GPU} is requested (2) without a limit, and it cannot be overcommitted: set "
        f"limits: {{{GPU}: 2}} beside the request, or the limit alone (the request defaults "
        "to it)",
    )
    assert str(fraction.hint).startswith(
        "example.com/fpga is counted in whole units, and 1500m is 1.5: write a whole number "
        "such as 2; "
    )


@pytest.mark.parametrize(
    "resources",
    [
        {"requests": {GPU: "2"}},
        {"requests": {GPU: "2"}, "limits": {GPU: "4"}},
        {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}},
    ],
)
def test_the_request_is_the_cause_where_upstream_names_the_whole_map(resources):
    # Upstream names `requests` or the missing `limits`; the line to change is the request.
    [error] = check_container_resources(resources, CTR, V33, pod_claims=())
    name = next(iter(resources["requests"]))
    assert error.path != error.culprit
    assert error.culprit == (*CTR, "requests", name)


def test_hugepages_without_cpu_or_memory_are_caused_by_the_hugepages_amount():
    resources: JsonObject = {
        "requests": {"hugepages-2Mi": "2Mi"},
        "limits": {"hugepages-2Mi": "2Mi"},
    }
    [error] = check_container_resources(resources, CTR, V33, pod_claims=())
    assert error.message() == f"{AT}: Forbidden: HugePages require cpu or memory"
    assert error.culprit == (*CTR, "limits", "hugepages-2Mi")
