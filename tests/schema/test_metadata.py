import pytest

from tests.support.builders import located, object_from_yaml
from tests.support.documents import make_object
from trainc.diagnostics import Severity
from trainc.load.documents import LoadedObject
from trainc.model.json import JsonObject, JsonValue
from trainc.schema.metadata import (
    check_metadata,
    dns1035_label_errors,
    dns1123_label_errors,
    dns1123_subdomain_errors,
    domain_prefixed_path_errors,
    label_value_errors,
    qualified_name_errors,
)


@pytest.mark.parametrize(
    ("check", "valid", "invalid"),
    [
        (
            dns1123_subdomain_errors,
            ["a", "torch-distributed", "llama3.2-1b", "a" * 253],
            ["", "A", "-a", "a-", "a_b", "a..b", "a" * 254],
        ),
        (dns1123_label_errors, ["a", "1abc", "team-a", "a" * 63], ["", "a.b", "A", "a" * 64]),
        (dns1035_label_errors, ["a", "abc-123", "a" * 63], ["", "1abc", "a.b", "a" * 64]),
        (
            qualified_name_errors,
            ["app", "MyName", "my.name", "123-abc", "example.com/MyName", "a" * 63],
            ["", "-a", "a/", "/a", "a/b/c", "Example.com/a", "a" * 64, "a b"],
        ),
        (
            label_value_errors,
            ["", "MyValue", "my_value", "12345", "a" * 63],
            ["-a", "a-", "a b", "a" * 64],
        ),
        (
            domain_prefixed_path_errors,
            ["example.com/team", "kueue.x-k8s.io/manager", "a.io/x/y"],
            ["", "team", "example.com/", "/team", "Example.com/team", "example.com/a b"],
        ),
    ],
)
def test_name_predicates(check, valid, invalid):
    assert [value for value in valid if check(value)] == []
    assert [value for value in invalid if not check(value)] == []


def test_messages_are_apimachinery_strings():
    assert dns1123_label_errors("a.b") == ["must not contain dots"]
    assert dns1035_label_errors("a" * 64) == ["must be no more than 63 characters"]
    assert qualified_name_errors("/a") == ["prefix part must be non-empty"]
    assert domain_prefixed_path_errors("team") == [
        'must be a domain-prefixed path (such as "acme.io/foo")'
    ]
    assert dns1123_subdomain_errors("A") == [
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
        "'-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com')"
    ]


def test_formats_are_described_in_words_never_by_their_regular_expression():
    # apimachinery appends "(regex used for validation is '...')"; trainc says it in words.
    errors = [
        *dns1123_subdomain_errors("A_b"),
        *dns1123_label_errors("A_b"),
        *dns1035_label_errors("1a"),
        *qualified_name_errors("a/b/c"),
        *qualified_name_errors("x/-a"),
        *label_value_errors("-a"),
        *domain_prefixed_path_errors("example.com/a b"),
    ]
    assert len(errors) == 7
    assert not [error for error in errors if "regex" in error or "[a-z" in error.lower()]
    assert domain_prefixed_path_errors("example.com/a b") == [
        "must be a valid HTTP path: letters, digits and the characters "
        "/ - . _ ~ % ! $ & ' ( ) * + , ; = :"
    ]
    assert dns1035_label_errors("1a") == [
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start "
        "with an alphabetic character, and end with an alphanumeric character "
        "(e.g. 'my-name' or 'abc-123')"
    ]


RUNTIME = """\
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: Torch_Distributed
  namespace: team.a
  labels:
    app.kubernetes.io/name: torch
    -bad: x
    tier: not valid
  annotations:
    Example.COM/Owner: ml
    bad key: x
spec: {}
"""


def test_findings_point_at_each_field():
    findings = check_metadata(object_from_yaml(RUNTIME), namespaced=True)

    assert [(d.code, d.field_path, d.line) for d in findings] == [
        ("meta.name-format", "metadata.name", 4),
        ("meta.namespace-format", "metadata.namespace", 5),
        ("meta.label-key", "metadata.labels[-bad]", 8),
        ("meta.label-value", "metadata.labels.tier", 9),
        ("meta.label-key", "metadata.annotations[bad key]", 12),
    ]
    assert (
        findings[0].hint
        == "use at most 253 lower-case letters, digits, '-' and '.', e.g. 'torch-distributed'"
    )
    assert findings[1].message.startswith("must not contain dots")


def _object(kind: str = "ClusterTrainingRuntime", **metadata: JsonValue) -> LoadedObject:
    return make_object(
        {
            "apiVersion": "trainer.kubeflow.org/v1alpha1",
            "kind": kind,
            "metadata": {"name": "torch-distributed", **metadata},
            "spec": {},
        }
    )


def test_cluster_scoped_namespace_is_ignored_with_a_warning():
    findings = check_metadata(_object(namespace="team-a"), namespaced=False)

    assert located(findings) == [("meta.namespace-ignored", "metadata.namespace")]
    assert findings[0].severity is Severity.WARNING


def test_trainjob_names_are_left_to_cel():
    assert check_metadata(_object("TrainJob", name="Not_A_Label"), namespaced=True) == []


def test_annotations_are_limited_to_256_kib_in_total():
    big: JsonObject = {"a": "x" * (128 * 1024), "b": "y" * (128 * 1024)}

    findings = check_metadata(_object(annotations=big), namespaced=False)

    assert located(findings) == [("meta.annotations-too-large", "metadata.annotations")]


def test_a_lone_surrogate_counts_as_the_three_bytes_of_its_replacement():
    # No UTF-8 text holds one; the API server's JSON decoder makes U+FFFD of it.
    limit = 256 * 1024 - 1  # the key "a" and this many bytes of value fit exactly
    fits: JsonObject = {"a": "x" * (limit - 3) + "\udcff"}
    over: JsonObject = {"a": "x" * (limit - 2) + "\udcff"}

    assert check_metadata(_object(annotations=fits), namespaced=False) == []
    findings = check_metadata(_object(annotations=over), namespaced=False)
    assert located(findings) == [("meta.annotations-too-large", "metadata.annotations")]


def test_valid_metadata_passes():
    obj = _object(
        "TrainingRuntime",
        namespace="team-a",
        labels={"trainer.kubeflow.org/framework": "torch", "empty": ""},
        annotations={"Example.com/Owner": "free text, any length"},
    )

    assert check_metadata(obj, namespaced=True) == []
