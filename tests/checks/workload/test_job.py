"""The rules of a Job's own spec, for the Jobs a JobSet creates."""

from __future__ import annotations

from typing import Any

import pytest

from trainc.checks.workload.job import check_job_spec
from trainc.checks.workload.job_policies import count_indexes
from trainc.model.json import JsonObject
from trainc.schema.metadata import dns1123_subdomain_errors

NAME = "train-node-0"
POD: JsonObject = {"containers": [{"name": "node", "image": "pytorch/pytorch:2.7.0"}]}
Case = tuple[Any, tuple[int, int], list[tuple[str, str]]]
RP = "spec.template.spec.restartPolicy"
PFP = "spec.podFailurePolicy.rules"
SP = "spec.successPolicy.rules"


def job(labels: Any = None, pod: Any = None, **spec: Any) -> JsonObject:
    """A Job as the JobSet controller creates it: named, with one container."""
    template: JsonObject = {"spec": {**POD, **(pod or {})}}
    if labels is not None:
        template["metadata"] = {"labels": labels}
    return {"metadata": {"name": NAME}, "spec": {"template": template, **spec}}


def found(obj: JsonObject, version: tuple[int, int] = (1, 33)) -> list[tuple[str, str]]:
    return [(e.code, e.message()) for e in check_job_spec(obj, version)]


NEVER = {"restartPolicy": "Never"}
EXIT_RULE = {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [42]}}

SELECTOR: list[Case] = [
    (job(), (1, 33), []),
    (job(labels={"app": "trainer"}, parallelism=4, completions=4), (1, 33), []),
    (
        job(selector={"matchLabels": {"app": "trainer"}}, labels={"app": "trainer"}),
        (1, 33),
        [
            (
                "job.selector",
                'spec.selector: Invalid value: {"matchLabels":{"app":"trainer"}}: `selector` not '
                "auto-generated",
            )
        ],
    ),
    (
        job(labels={"job-name": "other", "batch.kubernetes.io/controller-uid": "1234"}),
        (1, 33),
        [
            (
                "job.selector",
                "spec.template.metadata.labels[job-name]: Invalid value: map[string]string"
                '{"batch.kubernetes.io/controller-uid":"1234", "job-name":"other"}: must be '
                f"'{NAME}'",
            ),
            (
                "job.selector",
                "spec.template.metadata.labels[batch.kubernetes.io/controller-uid]: Invalid value: "
                'map[string]string{"batch.kubernetes.io/controller-uid":"1234", "job-name":"other"}'
                ": must be '<uid>'",
            ),
            (
                "job.selector",
                "spec.template.metadata.labels: Invalid value: map[string]string"
                '{"batch.kubernetes.io/controller-uid":"1234", "job-name":"other"}: `selector` '
                "does not match template `labels`",
            ),
        ],
    ),
    (
        job(labels={"job-name": "other"}),
        (1, 34),
        [
            (
                "job.selector",
                'spec.template.metadata.labels[job-name]: Invalid value: {"job-name":"other"}: '
                f"must be '{NAME}'",
            )
        ],
    ),
    (job(labels={"batch.kubernetes.io/job-name": NAME}), (1, 33), []),
    # A manual selector must exist and select the template's labels.
    (
        job(manualSelector=True, labels={"app": "trainer"}),
        (1, 34),
        [
            ("job.selector", "spec.selector: Required value"),
            (
                "job.selector",
                'spec.template.metadata.labels: Invalid value: {"app":"trainer"}: `selector` does '
                "not match template `labels`",
            ),
        ],
    ),
    (
        job(
            manualSelector=True,
            selector={"matchExpressions": [{"key": "app", "operator": "In", "values": ["eval"]}]},
            labels={"app": "trainer"},
        ),
        (1, 33),
        [
            (
                "job.selector",
                "spec.template.metadata.labels: Invalid value: map[string]string"
                '{"app":"trainer"}: `selector` does not match template `labels`',
            )
        ],
    ),
    (
        job(
            manualSelector=True,
            selector={"matchExpressions": [{"key": "app", "operator": "Exists", "values": ["x"]}]},
        ),
        (1, 33),
        [
            (
                "job.selector",
                "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when "
                "`operator` is 'Exists' or 'DoesNotExist'",
            )
        ],
    ),
    (
        job(
            manualSelector=True,
            selector={"matchLabels": {"app": "trainer"}},
            labels={"app": "trainer"},
        ),
        (1, 33),
        [],
    ),
]

COUNTS: list[Case] = [
    (
        job(
            parallelism=-1,
            completions=-1,
            activeDeadlineSeconds=-1,
            backoffLimit=-1,
            ttlSecondsAfterFinished=-1,
            maxFailedIndexes=-1,
        ),
        (1, 33),
        [
            (
                "job.counts",
                "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
            ),
            (
                "job.counts",
                "spec.completions: Invalid value: -1: must be greater than or equal to 0",
            ),
            (
                "job.counts",
                "spec.activeDeadlineSeconds: Invalid value: -1: must be greater than or equal to 0",
            ),
            (
                "job.counts",
                "spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0",
            ),
            (
                "job.counts",
                "spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal "
                "to 0",
            ),
            (
                "job.counts",
                "spec.maxFailedIndexes: Invalid value: -1: must be greater than or equal to 0",
            ),
            (
                "job.counts",
                "spec.backoffLimitPerIndex: Required value: when maxFailedIndexes is specified",
            ),
        ],
    ),
    (job(parallelism=0, completions=0, backoffLimit=0, activeDeadlineSeconds=0), (1, 33), []),
]

MANAGED_BY: list[Case] = [
    # managedBy is dropped before 1.32.
    (job(managedBy="kueue"), (1, 31), []),
    (
        job(managedBy="kueue"),
        (1, 32),
        [
            (
                "job.managed-by",
                'spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as '
                '"acme.io/foo")',
            )
        ],
    ),
    (
        job(managedBy="Kueue.io/" + "x" * 60),
        (1, 33),
        [
            (
                "job.managed-by",
                'spec.managedBy: Invalid value: "Kueue.io": '
                f"{dns1123_subdomain_errors('Kueue.io')[0]}",
            ),
            ("job.managed-by", "spec.managedBy: Too long: may not be longer than 63"),
        ],
    ),
    (job(managedBy="kueue.x-k8s.io/multikueue"), (1, 33), []),
]

COMPLETION_MODE: list[Case] = [
    (
        job(completionMode="Parallel"),
        (1, 33),
        [
            (
                "job.completion-mode",
                'spec.completionMode: Unsupported value: "Parallel": supported values: '
                '"NonIndexed", "Indexed"',
            )
        ],
    ),
    (
        job(completionMode="NonIndexed", backoffLimitPerIndex=1, maxFailedIndexes=1),
        (1, 33),
        [
            (
                "job.completion-mode",
                "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
            ),
            (
                "job.completion-mode",
                "spec.maxFailedIndexes: Invalid value: 1: requires indexed completion mode",
            ),
        ],
    ),
    (job(completionMode="NonIndexed", parallelism=8), (1, 33), []),
    # Unset, the JobSet webhook makes it Indexed, which needs completions.
    (
        job(parallelism=4),
        (1, 33),
        [
            (
                "job.completion-mode",
                "spec.completions: Required value: when completion mode is Indexed",
            )
        ],
    ),
    (
        job(
            parallelism=100_001,
            completions=200_000,
            backoffLimitPerIndex=1,
            maxFailedIndexes=200_001,
        ),
        (1, 33),
        [
            (
                "job.completion-mode",
                "spec.parallelism: Invalid value: 100001: must be less than or equal to 100000 "
                "when completion mode is Indexed",
            ),
            (
                "job.completion-mode",
                "spec.maxFailedIndexes: Invalid value: 200001: must be less than or equal to "
                "completions",
            ),
            (
                "job.completion-mode",
                "spec.maxFailedIndexes: Invalid value: 200001: must be less than or equal to "
                "100000",
            ),
            (
                "job.completion-mode",
                "spec.parallelism: Invalid value: 100001: must be less than or equal to 10000 when "
                "completions are above 100000 and used with backoff limit per index",
            ),
            (
                "job.completion-mode",
                "spec.maxFailedIndexes: Invalid value: 200001: must be less than or equal to 10000 "
                "when completions are above 100000 and used with backoff limit per index",
            ),
        ],
    ),
    (
        job(completions=200_000, parallelism=100, backoffLimitPerIndex=1),
        (1, 33),
        [
            (
                "job.completion-mode",
                "spec.maxFailedIndexes: Required value: must be specified when completions is "
                "above 100000",
            )
        ],
    ),
    (
        {
            "metadata": {"name": "a" * 60},
            "spec": {"completions": 1000, "parallelism": 1000, "template": {"spec": POD}},
        },
        (1, 33),
        [
            (
                "job.completion-mode",
                f'metadata.name: Invalid value: "{"a" * 60}": will not able to create pod with '
                f"invalid DNS label: {'a' * 60}-999",
            )
        ],
    ),
    (job(completions=4, parallelism=4, backoffLimitPerIndex=2, maxFailedIndexes=2), (1, 33), []),
]

POD_FAILURE_POLICY: list[Case] = [
    (
        job(
            pod=NEVER,
            podFailurePolicy={
                "rules": [
                    {
                        "action": "Count",
                        "onExitCodes": {"operator": "NotIn", "values": list(range(1, 257))},
                    },
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}] * 21},
                ]
            },
        ),
        (1, 33),
        [
            (
                "job.pod-failure-policy",
                f"{PFP}[0].onExitCodes.values: Too many: 256: must have at most 255 items",
            ),
            (
                "job.pod-failure-policy",
                f"{PFP}[1].onPodConditions: Too many: 21: must have at most 20 items",
            ),
        ],
    ),
    (
        job(pod=NEVER, podFailurePolicy={"rules": [EXIT_RULE] * 21}),
        (1, 33),
        [("job.pod-failure-policy", f"{PFP}: Too many: 21: must have at most 20 items")],
    ),
    (
        job(
            pod=NEVER,
            podFailurePolicy={
                "rules": [
                    {"onPodConditions": [{"type": "DisruptionTarget"}]},
                    {
                        "action": "Retry",
                        "onExitCodes": {"values": [1]},
                        "onPodConditions": [{"type": "a b", "status": "Yes"}],
                    },
                    {"action": "FailIndex"},
                ]
            },
        ),
        (1, 33),
        [
            (
                "job.pod-failure-policy",
                f'{PFP}[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" '
                '"Ignore"]',
            ),
            (
                "job.pod-failure-policy",
                f'{PFP}[1].action: Unsupported value: "Retry": supported values: "Count", '
                '"FailIndex", "FailJob", "Ignore"',
            ),
            (
                "job.pod-failure-policy",
                f'{PFP}[1].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]',
            ),
            (
                "job.pod-failure-policy",
                f'{PFP}[1].onPodConditions[0].type: Invalid value: "a b": name part must consist '
                "of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (e.g. 'MyName', 'my.name' or '123-abc')",
            ),
            (
                "job.pod-failure-policy",
                f'{PFP}[1].onPodConditions[0].status: Unsupported value: "Yes": supported values: '
                '"False", "True", "Unknown"',
            ),
            (
                "job.pod-failure-policy",
                f"{PFP}[1]: Invalid value: specifying both OnExitCodes and OnPodConditions is not "
                "supported",
            ),
            (
                "job.pod-failure-policy",
                f'{PFP}[2].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex '
                "to be set",
            ),
            (
                "job.pod-failure-policy",
                f"{PFP}[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is "
                "required",
            ),
        ],
    ),
    (
        job(
            pod=NEVER,
            podFailurePolicy={
                "rules": [
                    {
                        "action": "FailJob",
                        "onExitCodes": {
                            "containerName": "sidecar",
                            "operator": "In",
                            "values": [3, 0, 3],
                        },
                    },
                    {"action": "Ignore", "onExitCodes": {"operator": "NotIn", "values": []}},
                ]
            },
        ),
        (1, 33),
        [
            (
                "job.pod-failure-policy",
                f'{PFP}[0].onExitCodes.containerName: Invalid value: "sidecar": must be one of the '
                "container or initContainer names in the pod template",
            ),
            (
                "job.pod-failure-policy",
                f"{PFP}[0].onExitCodes.values[1]: Invalid value: 0: must not be 0 for the In "
                "operator",
            ),
            ("job.pod-failure-policy", f"{PFP}[0].onExitCodes.values[2]: Duplicate value: 3"),
            (
                "job.pod-failure-policy",
                f"{PFP}[0].onExitCodes.values: Invalid value: []int32{{3, 0, 3}}: must be ordered",
            ),
            (
                "job.pod-failure-policy",
                f"{PFP}[1].onExitCodes.values: Invalid value: []int32{{}}: at least one value is "
                "required",
            ),
        ],
    ),
    (
        job(
            pod=NEVER,
            podFailurePolicy={
                "rules": [{"action": "Ignore", "onExitCodes": {"operator": "In", "values": [3, 1]}}]
            },
        ),
        (1, 34),
        [
            (
                "job.pod-failure-policy",
                f"{PFP}[0].onExitCodes.values: Invalid value: [3,1]: must be ordered",
            )
        ],
    ),
    (
        job(
            pod=NEVER,
            backoffLimitPerIndex=1,
            completions=2,
            parallelism=2,
            podFailurePolicy={
                "rules": [
                    {
                        "action": "FailIndex",
                        "onExitCodes": {
                            "containerName": "node",
                            "operator": "In",
                            "values": [1, 42],
                        },
                    },
                    {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]},
                ]
            },
        ),
        (1, 33),
        [],
    ),
]

SUCCESS_POLICY: list[Case] = [
    (
        job(completions=4, parallelism=4, successPolicy={"rules": [{"succeededCount": 1}] * 21}),
        (1, 33),
        [("job.success-policy", f"{SP}: Too many: 21: must have at most 20 items")],
    ),
    (
        job(
            completions=4,
            parallelism=4,
            successPolicy={"rules": [{"succeededIndexes": "0," * 40000}]},
        ),
        (1, 33),
        [
            (
                "job.success-policy",
                f"{SP}[0].succeededIndexes: Too long: must have at most 65536 bytes",
            ),
            (
                "job.success-policy",
                f'{SP}[0].succeededIndexes: Invalid value: "{"0," * 40000}": error parsing '
                "succeededIndexes: non-increasing order, previous: 0, current: 0",
            ),
        ],
    ),
    # successPolicy is dropped before 1.31.
    (job(successPolicy={"rules": []}), (1, 30), []),
    (
        job(successPolicy={"rules": []}),
        (1, 31),
        [
            (
                "job.success-policy",
                f"{SP}: Required value: at least one rules must be specified when the "
                "successPolicy is specified",
            )
        ],
    ),
    (
        job(completionMode="NonIndexed", successPolicy={"rules": [{"succeededCount": 1}]}),
        (1, 33),
        [
            (
                "job.success-policy",
                'spec.successPolicy: Invalid value: {"rules":[{"succeededCount":1}]}: requires '
                "indexed completion mode",
            )
        ],
    ),
    (
        job(
            completions=4,
            parallelism=4,
            successPolicy={
                "rules": [
                    {},
                    {"succeededIndexes": "0,2-1"},
                    {"succeededIndexes": "1-2", "succeededCount": 5},
                ]
            },
        ),
        (1, 33),
        [
            (
                "job.success-policy",
                f"{SP}[0]: Required value: at least one of succeededCount or succeededIndexes must "
                "be specified",
            ),
            (
                "job.success-policy",
                f'{SP}[1].succeededIndexes: Invalid value: "0,2-1": error parsing '
                "succeededIndexes: non-increasing order, previous: 2, current: 1",
            ),
            (
                "job.success-policy",
                f"{SP}[2].succeededCount: Invalid value: 5: must be less than or equal to 4 (the "
                "number of specified completions)",
            ),
            (
                "job.success-policy",
                f"{SP}[2].succeededCount: Invalid value: 5: must be less than or equal to 2 (the "
                "number of indexes in the specified succeededIndexes field)",
            ),
        ],
    ),
    (
        job(
            completions=4,
            parallelism=4,
            successPolicy={"rules": [{"succeededIndexes": "0", "succeededCount": 1}]},
        ),
        (1, 33),
        [],
    ),
]

REPLACEMENT_AND_RESTART: list[Case] = [
    (
        job(podReplacementPolicy="Always"),
        (1, 33),
        [
            (
                "job.pod-replacement-policy",
                'spec.podReplacementPolicy: Unsupported value: "Always": supported values: '
                '"Failed", "TerminatingOrFailed"',
            )
        ],
    ),
    (
        job(
            pod=NEVER,
            podFailurePolicy={"rules": [EXIT_RULE]},
            podReplacementPolicy="TerminatingOrFailed",
        ),
        (1, 33),
        [
            (
                "job.pod-replacement-policy",
                'spec.podReplacementPolicy: Unsupported value: "TerminatingOrFailed": supported '
                'values: "Failed"',
            )
        ],
    ),
    (job(podReplacementPolicy="Failed"), (1, 33), []),
    (
        job(pod={"restartPolicy": "Always"}),
        (1, 33),
        [("job.restart-policy", f'{RP}: Required value: valid values: "OnFailure", "Never"')],
    ),
    (
        job(pod={"restartPolicy": "Sometimes"}),
        (1, 33),
        [
            (
                "job.restart-policy",
                f'{RP}: Unsupported value: "Sometimes": supported values: "OnFailure", "Never"',
            )
        ],
    ),
    # The JobSet webhook defaults the pods to OnFailure, which a pod failure policy refuses.
    (
        job(podFailurePolicy={"rules": [EXIT_RULE]}),
        (1, 33),
        [
            (
                "job.restart-policy",
                f'{RP}: Invalid value: "OnFailure": only "Never" is supported when '
                "podFailurePolicy is specified",
            )
        ],
    ),
    (job(pod=NEVER, podFailurePolicy={"rules": [EXIT_RULE]}), (1, 33), []),
]


@pytest.mark.parametrize(
    ("obj", "version", "expected"),
    SELECTOR
    + COUNTS
    + MANAGED_BY
    + COMPLETION_MODE
    + POD_FAILURE_POLICY
    + SUCCESS_POLICY
    + REPLACEMENT_AND_RESTART,
)
def test_job_spec(obj, version, expected):
    assert found(obj, version) == expected


@pytest.mark.parametrize(
    ("indexes", "expected"),
    [
        ("", (0, "")),
        ("0,2-4,7", (5, "")),
        ("+1", (1, "")),
        (
            "1-2-3",
            (
                0,
                'the fragment "1-2-3" violates the requirement that an index interval can have '
                "at most two parts separated by '-'",
            ),
        ),
        ("1,", (0, 'cannot convert string to integer for index: ""')),
        ("8", (0, 'too large index: "8"')),
        ("3-3", (0, "non-increasing order, previous: 3, current: 3")),
        ("1 ", (0, 'cannot convert string to integer for index: "1 "')),
    ],
)
def test_count_indexes(indexes, expected):
    assert count_indexes(indexes, 8) == expected


def test_odd_shapes_are_left_to_the_schema():
    assert found({"spec": "x"}) == []
    assert (
        found(
            {
                "metadata": [],
                "spec": {
                    "parallelism": "2",
                    "podFailurePolicy": {"rules": [None]},
                    "template": {"spec": {"restartPolicy": "Never"}},
                },
            }
        )
        == []
    )
