from __future__ import annotations

import pytest

from trainc.config.settings import DEFAULT_INCLUDE
from trainc.load.globs import literal_directory, path_filter


@pytest.mark.parametrize(
    ("path", "selected"),
    [
        ("a.yaml", True),
        ("deep/er/a.yml", True),
        ("x/a.yaml.j2", True),
        ("a.json", True),
        ("x/a.json.j2", False),
        ("a.yaml.bak", False),
        ("trainc.yaml", False),  # the repository config at the root is never an input
        ("sub/trainc.yaml", True),
    ],
)
def test_default_include(path: str, selected: bool) -> None:
    assert path_filter(DEFAULT_INCLUDE, ()).selects(path) is selected


def test_star_stops_at_slash_and_double_star_spans_directories() -> None:
    select = path_filter(("deploy/*.yaml", "jobs/**/train-?.yaml"), ())
    assert select.selects("deploy/a.yaml")
    assert not select.selects("deploy/sub/a.yaml")
    assert select.selects("jobs/train-1.yaml")
    assert select.selects("jobs/a/b/train-2.yaml")
    assert not select.selects("jobs/a/train-10.yaml")


def test_exclude_and_pruning() -> None:
    select = path_filter(DEFAULT_INCLUDE, ("out/**", "**/*.generated.yaml", "[!a]*.yml"))
    assert not select.selects("out/x.yaml")
    assert not select.selects("a/b.generated.yaml")
    assert not select.selects("b.yml")
    assert select.selects("a.yml")
    assert select.prunes("out")
    assert not select.prunes("outer")
    assert not select.prunes("a")


def test_character_classes_and_literal_brackets() -> None:
    select = path_filter(("[ab].yaml", "x[.yaml", "c[^].yaml"), ())
    assert select.selects("a.yaml")
    assert not select.selects("c.yaml")
    assert select.selects("x[.yaml")
    assert select.selects("c^.yaml")


@pytest.mark.parametrize(
    ("pattern", "directory"),
    [
        ("runtimes/**", "runtimes"),
        ("/platform/runtimes/*.yaml", "platform/runtimes"),
        ("./teams/*/runtimes/**", "teams"),
        ("*.yaml", ""),
        ("**/runtimes/*.yaml", ""),
        ("r[ab]/x.yaml", ""),
    ],
)
def test_literal_directory_is_where_a_walk_for_the_pattern_starts(
    pattern: str, directory: str
) -> None:
    assert literal_directory(pattern) == directory
