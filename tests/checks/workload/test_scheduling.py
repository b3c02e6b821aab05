"""Placement rules: node selector, affinity, tolerations, topology spread constraints."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.checks.workload.scheduling import check_scheduling
from trainc.model.json import JsonObject
from trainc.schema.metadata import label_value_errors, qualified_name_errors

S = "spec.template.spec"
NA = f"{S}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
PA = f"{S}.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"
TSC = f"{S}.topologySpreadConstraints"
BAD_VALUE = label_value_errors("a b")[0]
BAD_NAME = qualified_name_errors("a b")[0]
Case = tuple[Any, tuple[int, int], list[tuple[str, str]]]


def found(spec: JsonObject, version: tuple[int, int] = (1, 33)) -> list[tuple[str, str]]:
    errors = check_scheduling(spec, ("spec", "template", "spec"), version)
    return [(e.code, e.message()) for e in errors]


def node_affinity(*expressions: Any) -> Any:
    term = {"matchExpressions": list(expressions)}
    return {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
            }
        }
    }


def pod_affinity(term: Any) -> Any:
    return {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}


NODE_SELECTOR: list[Case] = [
    (
        {"nodeSelector": {"a b": "x", "gpu": "a b"}},
        (1, 33),
        [
            ("pod.node-selector", f'{S}.nodeSelector: Invalid value: "a b": {BAD_NAME}'),
            ("pod.node-selector", f'{S}.nodeSelector: Invalid value: "a b": {BAD_VALUE}'),
        ],
    ),
    (
        {"nodeSelector": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "pool": ""}},
        (1, 33),
        [],
    ),
]

AFFINITY: list[Case] = [
    (
        {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {}}}},
        (1, 33),
        [
            (
                "pod.affinity",
                f"{NA}.nodeSelectorTerms: Required value: must have at least one node selector "
                "term",
            )
        ],
    ),
    (
        node_affinity(
            {"key": "gpu", "operator": "In"},
            {"key": "gpu", "operator": "Exists", "values": ["a"]},
            {"key": "gpu-count", "operator": "Gt", "values": ["1", "2"]},
            {"key": "gpu", "operator": "Equals", "values": ["a"]},
        ),
        (1, 33),
        [
            (
                "pod.affinity",
                f"{NA}.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be "
                "specified when `operator` is 'In' or 'NotIn'",
            ),
            (
                "pod.affinity",
                f"{NA}.nodeSelectorTerms[0].matchExpressions[1].values: Forbidden: may not be "
                "specified when `operator` is 'Exists' or 'DoesNotExist'",
            ),
            (
                "pod.affinity",
                f"{NA}.nodeSelectorTerms[0].matchExpressions[2].values: Required value: must be "
                "specified single value when `operator` is 'Lt' or 'Gt'",
            ),
            (
                "pod.affinity",
                f'{NA}.nodeSelectorTerms[0].matchExpressions[3].operator: Invalid value: "Equals": '
                "not a valid selector operator",
            ),
        ],
    ),
    # Required node affinity values are checked from 1.33 (kubernetes#128212).
    (node_affinity({"key": "zone", "operator": "In", "values": ["a b"]}), (1, 32), []),
    (
        node_affinity({"key": "zone", "operator": "In", "values": ["a b"]}),
        (1, 33),
        [
            (
                "pod.affinity",
                f'{NA}.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: "a b": '
                f"{BAD_VALUE}",
            )
        ],
    ),
    (
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchFields": [
                                    {"key": "metadata.uid", "operator": "In", "values": []}
                                ]
                            }
                        ]
                    },
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "weight": 101,
                            "preference": {
                                "matchExpressions": [
                                    {"key": "z", "operator": "In", "values": ["a b"]}
                                ]
                            },
                        }
                    ],
                }
            }
        },
        (1, 33),
        [
            (
                "pod.affinity",
                f"{NA}.nodeSelectorTerms[0].matchFields[0].values: Required value: must be only "
                "one value when `operator` is 'In' or 'NotIn' for node field selector",
            ),
            (
                "pod.affinity",
                f'{NA}.nodeSelectorTerms[0].matchFields[0].key: Invalid value: "metadata.uid": '
                "not a valid field selector key",
            ),
            (
                "pod.affinity",
                f"{S}.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
                "weight: Invalid value: 101: must be in the range 1-100",
            ),
        ],
    ),
    (
        node_affinity(
            {
                "key": "nvidia.com/gpu.product",
                "operator": "In",
                "values": ["NVIDIA-H100-80GB-HBM3"],
            },
            {"key": "gpu-count", "operator": "Gt", "values": ["4"]},
        ),
        (1, 33),
        [],
    ),
    (
        pod_affinity(
            {
                "labelSelector": {
                    "matchExpressions": [{"key": "app", "operator": "In", "values": ["a b"]}]
                },
                "namespaces": ["Team"],
                "topologyKey": "",
            }
        ),
        (1, 33),
        [
            (
                "pod.affinity",
                f'{PA}.labelSelector.matchExpressions[0].values[0]: Invalid value: "a b": '
                f"{BAD_VALUE}",
            ),
            (
                "pod.affinity",
                f'{PA}.namespace: Invalid value: "Team": a lowercase RFC 1123 label must consist '
                "of lower case alphanumeric characters or '-', and must start and end with an "
                "alphanumeric character (e.g. 'my-name' or '123-abc')",
            ),
            ("pod.affinity", f"{PA}.topologyKey: Required value: can not be empty"),
            (
                "pod.affinity",
                f'{PA}.topologyKey: Invalid value: "": {qualified_name_errors("")[0]}',
            ),
            (
                "pod.affinity",
                f'{PA}.topologyKey: Invalid value: "": {qualified_name_errors("")[1]}',
            ),
        ],
    ),
    # matchLabelKeys/mismatchLabelKeys are dropped before 1.31.
    (
        pod_affinity(
            {"matchLabelKeys": ["app"], "mismatchLabelKeys": ["app"], "topologyKey": "zone"}
        ),
        (1, 30),
        [],
    ),
    (
        pod_affinity(
            {"matchLabelKeys": ["app"], "mismatchLabelKeys": ["app"], "topologyKey": "zone"}
        ),
        (1, 31),
        [
            (
                "pod.affinity",
                f"{PA}.matchLabelKeys: Forbidden: must not be specified when labelSelector is not "
                "set",
            ),
            (
                "pod.affinity",
                f"{PA}.mismatchLabelKeys: Forbidden: must not be specified when labelSelector is "
                "not set",
            ),
            (
                "pod.affinity",
                f'{PA}.matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys and '
                "mismatchLabelKeys",
            ),
        ],
    ),
    (
        pod_affinity(
            {
                "labelSelector": {
                    "matchLabels": {"job": "a"},
                    "matchExpressions": [{"key": "job", "operator": "Exists"}],
                },
                "matchLabelKeys": ["job"],
                "topologyKey": "zone",
            }
        ),
        (1, 33),
        [
            (
                "pod.affinity",
                f'{PA}[0]: Invalid value: "job": exists in both matchLabelKeys and labelSelector',
            )
        ],
    ),
    (
        pod_affinity(
            {
                "labelSelector": {"matchLabels": {"app": "trainer"}},
                "matchLabelKeys": ["jobset.sigs.k8s.io/job-key"],
                "topologyKey": "kubernetes.io/hostname",
            }
        ),
        (1, 33),
        [],
    ),
]

TOLERATIONS: list[Case] = [
    (
        {
            "tolerations": [
                {"operator": "Equal", "value": "x"},
                {
                    "key": "gpu",
                    "operator": "Exists",
                    "value": "true",
                    "effect": "NoSchedule",
                    "tolerationSeconds": 60,
                },
                {"key": "gpu", "operator": "In", "effect": "Evict"},
                {"key": "gpu", "value": "a b"},
            ]
        },
        (1, 33),
        [
            (
                "pod.tolerations",
                f'{S}.tolerations[0].operator: Invalid value: "Equal": operator must be Exists '
                'when `key` is empty, which means "match all values and all keys"',
            ),
            (
                "pod.tolerations",
                f'{S}.tolerations[1].effect: Invalid value: "NoSchedule": effect must be '
                "'NoExecute' when `tolerationSeconds` is set",
            ),
            (
                "pod.tolerations",
                f'{S}.tolerations[1].operator: Invalid value: "true": value must be empty when '
                "`operator` is 'Exists'",
            ),
            (
                "pod.tolerations",
                f'{S}.tolerations[2].operator: Unsupported value: "In": supported values: "Equal", '
                '"Exists"',
            ),
            (
                "pod.tolerations",
                f'{S}.tolerations[2].effect: Unsupported value: "Evict": supported values: '
                '"NoSchedule", "PreferNoSchedule", "NoExecute"',
            ),
            ("pod.tolerations", f'{S}.tolerations[3].operator: Invalid value: "a b": {BAD_VALUE}'),
        ],
    ),
    (
        {
            "tolerations": [
                {"operator": "Exists"},
                {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                {
                    "key": "node.kubernetes.io/unreachable",
                    "effect": "NoExecute",
                    "tolerationSeconds": 30,
                },
            ]
        },
        (1, 33),
        [],
    ),
]

#: A spread constraint whose matchLabelKeys repeat a selector key, and hold a bad one.
MATCH_LABEL_KEYS_IN_SELECTOR: JsonObject = {
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "matchLabelKeys": ["app", "a b"],
            "labelSelector": {"matchLabels": {"app": "trainer"}},
        }
    ]
}

TOPOLOGY_SPREAD: list[Case] = [
    (
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 0,
                    "topologyKey": "",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "minDomains": 0,
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "minDomains": 2,
                    "nodeAffinityPolicy": "Respect",
                },
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"},
                {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"},
            ]
        },
        (1, 33),
        [
            (
                "pod.topology-spread",
                f"{TSC}[0].maxSkew: Invalid value: 0: must be greater than zero",
            ),
            ("pod.topology-spread", f"{TSC}[0].topologyKey: Required value: can not be empty"),
            (
                "pod.topology-spread",
                f"{TSC}[0].minDomains: Invalid value: 0: must be greater than zero",
            ),
            (
                "pod.topology-spread",
                f'{TSC}[1].{{topologyKey, whenUnsatisfiable}}: Duplicate value: "{{zone, '
                'ScheduleAnyway}"',
            ),
            (
                "pod.topology-spread",
                f"{TSC}[1].minDomains: Invalid value: 2: can only use minDomains if "
                "whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway",
            ),
            (
                "pod.topology-spread",
                f'{TSC}[1].nodeAffinityPolicy: Unsupported value: "Respect": supported values: '
                '"Honor", "Ignore"',
            ),
            (
                "pod.topology-spread",
                f'{TSC}[3].whenUnsatisfiable: Unsupported value: "Never": supported values: '
                '"DoNotSchedule", "ScheduleAnyway"',
            ),
        ],
    ),
    # matchLabelKeys may repeat a selector key once the API server merges them (1.34).
    (
        MATCH_LABEL_KEYS_IN_SELECTOR,
        (1, 33),
        [
            (
                "pod.topology-spread",
                f'{TSC}[0].matchLabelKeys[0]: Invalid value: "app": exists in both matchLabelKeys '
                "and labelSelector",
            ),
            (
                "pod.topology-spread",
                f'{TSC}[0].matchLabelKeys[1]: Invalid value: "a b": {BAD_NAME}',
            ),
        ],
    ),
    (
        MATCH_LABEL_KEYS_IN_SELECTOR,
        (1, 34),
        [("pod.topology-spread", f'{TSC}[0].matchLabelKeys[1]: Invalid value: "a b": {BAD_NAME}')],
    ),
    (
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "matchLabelKeys": ["app"],
                }
            ]
        },
        (1, 33),
        [
            (
                "pod.topology-spread",
                f"{TSC}[0].matchLabelKeys: Forbidden: must not be specified when labelSelector is "
                "not set",
            )
        ],
    ),
    (
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "minDomains": 2,
                    "nodeTaintsPolicy": "Honor",
                    "matchLabelKeys": ["jobset.sigs.k8s.io/job-key"],
                    "labelSelector": {"matchLabels": {"app": "trainer"}},
                },
                {
                    "maxSkew": 1,
                    "topologyKey": "topology.kubernetes.io/zone",
                    "whenUnsatisfiable": "ScheduleAnyway",
                },
            ]
        },
        (1, 33),
        [],
    ),
]


@pytest.mark.parametrize(
    ("spec", "version", "expected"), NODE_SELECTOR + AFFINITY + TOLERATIONS + TOPOLOGY_SPREAD
)
def test_scheduling(spec, version, expected):
    assert found(spec, version) == expected


def test_odd_shapes_are_left_to_the_schema():
    spec: JsonObject = {
        "nodeSelector": ["gpu"],
        "affinity": "any",
        "tolerations": [None, {"key": 1}],
        "topologySpreadConstraints": {"maxSkew": 0},
    }
    assert found(spec) == []
