from __future__ import annotations

from pathlib import Path

import pytest
import yaml  # type: ignore[import-untyped]  # noqa: TID251 -- the reference dumper: many styles
from hypothesis import given
from hypothesis import strategies as st

from tests.load.yamltext import yaml_streams
from trainc.config.limits import InputLimits
from trainc.load.objects import classify_documents
from trainc.load.prefilter import may_define_runtime
from trainc.load.source import SourceFile
from trainc.load.yamlsrc import parse_documents
from trainc.model.kinds import RUNTIME_KINDS

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "upstream" / "trainer-examples"

TRAINJOB = b"""\
# a header comment
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob  # the job
metadata:
  name: j
spec:
  runtimeRef:
    kind: TrainingRuntime
    name: torch
"""


def defines_runtime(data: bytes) -> bool:
    """What trainc's own loader says: does any object it classifies hold a runtime kind?"""
    try:
        text = data.decode()
    except UnicodeDecodeError:
        return False
    parsed = parse_documents(SourceFile(path="f.yaml", text=text), InputLimits())
    classified = classify_documents(parsed.documents)
    return any(obj.kind in RUNTIME_KINDS for obj in classified.objects)


@pytest.mark.parametrize(
    "data",
    [
        TRAINJOB,
        TRAINJOB.replace(b"\n", b"\r\n"),
        b"---\n" + TRAINJOB + b"...\n---\n# two\n" + TRAINJOB,
        b'"kind": "TrainJob"\nnote: mentions TrainingRuntime\n',
        b"kind: ConfigMap\ndata:\n  x: ClusterTrainingRuntime\n",
    ],
    ids=["trainjob", "crlf", "two-documents", "quoted", "configmap"],
)
def test_files_that_cannot_define_a_runtime_are_skipped(data: bytes) -> None:
    assert not defines_runtime(data)
    assert not may_define_runtime(data)


@pytest.mark.parametrize(
    "data",
    [
        b"kind: TrainingRuntime\n",
        b"kind: ClusterTrainingRuntime # shared\n",
        b"'kind': \"TrainingRuntime\"\r\n",
        TRAINJOB + b"---\nkind: TrainingRuntime\n",
        TRAINJOB + b"---\n  kind: TrainingRuntime\n  metadata: {}\n",
        b"  kind: TrainingRuntime\n",
        b"# c\n\n  kind: TrainingRuntime\n",
        b"--- !!map\nkind: TrainingRuntime\n",
        b"--- {kind: TrainingRuntime}\n",
        b'{"kind": "TrainingRuntime"}\n',
        b"kind: !!str TrainingRuntime\n",
        b"kind: &k TrainingRuntime\n",
        b"kind:\n  TrainingRuntime\n",
        b'"ki\\u006ed": TrainingRuntime\n',
        b"base: &b {kind: TrainingRuntime}\n<<: *b\n",
        b"? kind\n: TrainingRuntime\n",
        b"kind: List\nitems:\n- kind: TrainingRuntime\n",
        b"kind: RuntimeList\nitems:\n- kind: TrainingRuntime\n",
        b"{% if x %}\nkind: TrainingRuntime\n{% endif %}\n",
        b"kind: {{ kind }}  # TrainingRuntime\n",
        b"- kind: TrainingRuntime\n",
    ],
)
def test_files_that_may_define_a_runtime_are_parsed(data: bytes) -> None:
    assert may_define_runtime(data)


def _runtime(extra: dict[str, object]) -> dict[str, object]:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        **extra,
        "kind": "TrainingRuntime",
        "metadata": {"name": "torch"},
    }


DUMP_STYLES = st.fixed_dictionaries({
    "default_flow_style": st.sampled_from([True, False, None]),
    "canonical": st.booleans(),
    "explicit_start": st.booleans(),
    "indent": st.integers(2, 6),
})  # fmt: skip


@given(
    extra=st.dictionaries(st.text(min_size=6, max_size=8), st.text(max_size=5), max_size=3),
    style=DUMP_STYLES,
    before=st.sampled_from([b"", TRAINJOB + b"---\n", b"# c\n", b"%YAML 1.1\n---\n"]),
    shift=st.sampled_from([b"", b" ", b"   "]),
)
def test_every_dumped_runtime_is_parsed(
    extra: dict[str, object], style: dict[str, object], before: bytes, shift: bytes
) -> None:
    """Soundness: however a runtime is written, the prefilter never skips it."""
    text = yaml.safe_dump(_runtime(extra), allow_unicode=True, **style).encode()
    markers = (b"---", b"...", b"%")
    shifted = b"".join(
        line if line.startswith(markers) else shift + line
        for line in text.splitlines(keepends=True)
    )
    data = before + shifted
    assert defines_runtime(data)
    assert may_define_runtime(data)


@given(yaml_streams().map(str.encode), st.sampled_from([b"TrainingRuntime", b"kind"]))
def test_never_skips_a_stream_that_a_parser_reads_as_a_runtime(data: bytes, word: bytes) -> None:
    """Soundness over YAML written every way it can be, with a runtime kind spliced in."""
    for variant in (data.replace(b"TrainJob", b"TrainingRuntime"), data.replace(word, b"kind")):
        if defines_runtime(variant):
            assert may_define_runtime(variant)


def _yaml_files() -> list[Path]:
    roots = [EXAMPLES / "runtimes", EXAMPLES / "jobs", UPSTREAM]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*.yaml"))


@pytest.mark.parametrize("path", _yaml_files(), ids=str)
def test_real_files_are_judged_soundly(path: Path) -> None:
    data = path.read_bytes()
    assert may_define_runtime(data) >= defines_runtime(data)
    if b"kind: TrainJob\n" in data and b"\n---" not in data:
        assert not may_define_runtime(data), "a plain TrainJob file should be skipped"
