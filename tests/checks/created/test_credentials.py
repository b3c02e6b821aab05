"""Credentials in plain text: which names look like one, which values hold one, and where."""

from __future__ import annotations

import pytest

from tests.support.builders import container, located, make_runtime, make_trainjob, resolved, rjob
from trainc.checks.created.credentials import (
    CODE,
    check_plaintext_credentials,
    holds_secret,
    looks_like_credential,
)
from trainc.diagnostics import Severity, rule_for
from trainc.load.defaulted import DefaultedObject
from trainc.model.json import JsonValue

CREDENTIAL_NAMES = [
    "HF_TOKEN",
    "HUGGING_FACE_HUB_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "GITHUB_TOKEN",
    "TOKEN",
    "hf_token",
    "hfToken",
    "HFTOKEN",
    "CLIENT_SECRET",
    "SECRET",
    "DB_PASSWORD",
    "MLFLOW_TRACKING_PASSWORD",
    "MYSQL_PASSWD",
    "DB_PASS",
    "SSH_PASSPHRASE",
    "WANDB_API_KEY",
    "OPENAI_APIKEY",
    "APIKEY",
    "SECRET_KEY",
    "ENCRYPTION_KEY",
    "SSH_PRIVATE_KEY",
    "KEY",
    "azure.storage.key",
]

ORDINARY_NAMES = [
    "TOKENIZERS_PARALLELISM",
    "MAX_TOKENS",
    "MAX_NEW_TOKENS",
    "TOKEN_PATH",
    "HF_TOKEN_FILE",
    "SECRET_NAME",
    "SECRETS_DIR",
    "AWS_ACCESS_KEY_ID",
    "SECRET_KEY_REF",
    "PASSWORD_FILE",
    "SORT_KEY",
    "PARTITION_KEY",
    "CACHE_KEY",
    "SSH_PUBLIC_KEY",
    "MONKEY",
    "PWD",
    "PASSES",
    "BYPASS",
    "STORAGE_URI",
    "PET_NNODES",
    "",
    "___",
]


@pytest.mark.parametrize("name", CREDENTIAL_NAMES)
def test_credential_names(name: str) -> None:
    assert looks_like_credential(name)


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_ordinary_names(name: str) -> None:
    assert not looks_like_credential(name)


@pytest.mark.parametrize(
    ("value", "secret"),
    [
        ("hf_abc", True),
        ("Bearer $(TOKEN)", True),
        ("", False),
        ("   ", False),
        ("$(HF_TOKEN)", False),
        ("$(A)$(B)", False),
        (None, False),
    ],
)
def test_what_a_value_may_hold(value: JsonValue, secret: bool) -> None:
    assert holds_secret(value) is secret


def _runtime(**node: JsonValue) -> DefaultedObject:
    main = container("node", **node)
    init = container("fetch", env=[{"name": "GIT_PASSWORD", "value": "pw"}])
    job = rjob("node", ancestor="trainer", containers=[main], init_containers=[init])
    return make_runtime(ml_policy={"torch": {}}, replicated_jobs=[job])


def test_literal_values_are_reported_where_they_were_written() -> None:
    trainjob = make_trainjob(
        trainer={
            "env": [
                {"name": "HF_TOKEN", "value": "hf_abc"},
                {"name": "TOKENIZERS_PARALLELISM", "value": "false"},
                {"name": "WANDB_API_KEY", "valueFrom": {"secretKeyRef": {"name": "w", "key": "k"}}},
            ]
        }
    )
    findings = check_plaintext_credentials(resolved(trainjob, _runtime()))
    assert sorted(located(findings)) == [
        (
            CODE,
            "spec.template.spec.replicatedJobs[0].template.spec.template.spec.initContainers[0].env[0].value",
        ),
        (CODE, "spec.trainer.env[0].value"),
    ]
    by_file = {finding.file: finding for finding in findings}
    token = by_file["trainjob.yaml"]
    assert token.severity is Severity.ERROR
    assert "'HF_TOKEN'" in token.message
    assert "hf_abc" not in f"{token.message} {token.hint}"
    assert token.hint is not None
    assert "secretKeyRef" in token.hint
    assert "'GIT_PASSWORD'" in by_file["runtime.yaml"].message


def test_an_initializer_credential_is_pointed_at_its_secret_ref() -> None:
    dataset = rjob(
        "dataset-initializer", ancestor="dataset-initializer", containers=["dataset-initializer"]
    )
    runtime = make_runtime(
        ml_policy={"torch": {}}, replicated_jobs=[dataset, rjob("node", ancestor="trainer")]
    )
    trainjob = make_trainjob(
        initializer={"dataset": {"env": [{"name": "AWS_SECRET_ACCESS_KEY", "value": "s"}]}}
    )
    (finding,) = check_plaintext_credentials(resolved(trainjob, runtime))
    assert finding.field_path == "spec.initializer.dataset.env[0].value"
    assert finding.hint is not None
    assert "spec.initializer.dataset.secretRef" in finding.hint


def test_the_rule_is_a_sensitive_error() -> None:
    rule = rule_for(CODE)
    assert (rule.severity, rule.sensitive) == (Severity.ERROR, True)
