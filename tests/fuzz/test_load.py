"""Loading any file, from valid manifests to random bytes: objects, or findings at a line."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import assert_located, written
from tests.fuzz.strategies import JINJA, Repo, mutated_repositories, new_files
from tests.load.files import config
from trainc.load.inputs import load_inputs
from trainc.model.kinds import KINDS_BY_NAME

_contents = st.one_of(
    new_files,
    st.binary(max_size=300),
    st.text(max_size=300),
    st.lists(st.sampled_from(JINJA) | st.text(max_size=5)).map("".join),
)
single_files = st.builds(
    lambda name, content: Repo("single", {name: content}),
    st.sampled_from(("input.yaml", "input.yaml.j2")),
    _contents,
)


@given(single_files | mutated_repositories())
def test_every_file_loads_to_trainer_objects_or_located_findings(repo: Repo) -> None:
    with written(repo) as root:
        result = load_inputs([root], config=config(root))
    assert_located(result.diagnostics, repo.files)
    for obj in result.objects:
        assert obj.path in repo.files
        # A Trainer kind is loaded whatever its apiVersion, for validation to judge that.
        assert obj.kind in KINDS_BY_NAME
        written_version = obj.data.get("apiVersion")
        assert obj.api_version == (written_version if isinstance(written_version, str) else "")
        assert obj.name
        assert obj.document.locate(()).line >= 1
