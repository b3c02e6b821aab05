"""The walk's listings kept between runs: a run that takes a directory from the index
finds exactly the files a fresh walk finds, whatever changed, and lists again every
directory that changed, holds a link, is a package, or was stamped in the racy window."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from trainc.cache.store import Store
from trainc.config.settings import RepoConfig
from trainc.load.discover import Discovery, discover_files
from trainc.load.globs import path_filter
from trainc.load.listings import Listings
from trainc.load.seen import Seen

from .files import config, write

#: The moment the runs begin stat-ing, as a later run sees it: every file written by the
#: test is then old enough to trust.
LATER_NS = 10**10


class Walks:
    """Walks of one repository with the index, each checked against a fresh walk."""

    def __init__(self, cfg: RepoConfig, store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
        self.cfg, self.store = cfg, store
        self.listed: list[str] = []
        real_scandir = os.scandir

        def scandir(path: Path) -> object:
            if Path(path).is_relative_to(cfg.root):  # not trainc's own files (its stamp)
                self.listed.append(Path(path).relative_to(cfg.root).as_posix())
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)

    def walk(self, *, later_ns: int = LATER_NS) -> Discovery:
        """The walk with the index (its runs begin stat-ing ``later_ns`` from now); the
        directories it listed are left in :attr:`listed`."""
        select = path_filter(self.cfg.include, self.cfg.exclude)
        expected = discover_files([self.cfg.root], root=self.cfg.root, select=select)
        listings = Listings(self.store, self.cfg, since_ns=time.time_ns() + later_ns)
        self.listed = []
        found = discover_files(
            [self.cfg.root], root=self.cfg.root, select=select, listings=listings
        )
        listings.save()
        assert found == expected
        return found

    def settled(self) -> None:
        """Walk until the index holds every directory."""
        self.walk()
        self.walk()
        assert self.listed == []


@pytest.fixture
def walks(tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch) -> Walks:
    root = tmp_path / "repo"
    for team in ("vision", "nlp"):
        for number in range(3):
            write(root, f"jobs/{team}/job-{number}.yaml", "kind: TrainJob\n")
    write(root, "runtimes/torch.yaml", "kind: ClusterTrainingRuntime\n")
    write(root, "notes.txt", "not an input\n")
    return Walks(config(root), store, monkeypatch)


def test_an_unchanged_repository_is_not_listed(walks: Walks) -> None:
    assert walks.walk().files[:2] == ("jobs/nlp/job-0.yaml", "jobs/nlp/job-1.yaml")
    assert sorted(walks.listed) == [".", "jobs", "jobs/nlp", "jobs/vision", "runtimes"]
    walks.settled()
    # A file edited in place leaves its directory as it was: its listing still holds.
    (walks.cfg.root / "jobs/nlp/job-1.yaml").write_text("kind: TrainJob # edited\n")
    walks.walk()
    assert walks.listed == []


@pytest.mark.parametrize(
    ("change", "listed"),
    [
        ("added", ["jobs/nlp"]),
        ("deleted", ["jobs/nlp"]),
        ("renamed", ["jobs/nlp"]),
        ("moved to another directory", ["jobs/vision", "jobs/nlp"]),
        ("a new directory", ["jobs", "jobs/new"]),
        ("a directory removed", ["jobs"]),
        ("a file becomes a directory", ["jobs/nlp", "jobs/nlp/job-2.yaml"]),
    ],
)
def test_a_changed_directory_is_listed_again(walks: Walks, change: str, listed: list[str]) -> None:
    walks.settled()
    jobs = walks.cfg.root / "jobs"
    if change == "added":
        write(walks.cfg.root, "jobs/nlp/copy.yaml", "kind: TrainJob\n")
    elif change == "deleted":
        (jobs / "nlp/job-1.yaml").unlink()
    elif change == "renamed":
        (jobs / "nlp/job-1.yaml").rename(jobs / "nlp/job-9.yaml")
    elif change == "moved to another directory":
        (jobs / "nlp/job-1.yaml").rename(jobs / "vision/job-9.yaml")
    elif change == "a new directory":
        write(walks.cfg.root, "jobs/new/job.yaml", "kind: TrainJob\n")
    elif change == "a directory removed":
        for file in (jobs / "nlp").iterdir():
            file.unlink()
        (jobs / "nlp").rmdir()
    else:
        (jobs / "nlp/job-2.yaml").unlink()
        write(walks.cfg.root, "jobs/nlp/job-2.yaml/inner.yaml", "kind: TrainJob\n")
    walks.walk()  # checked against a fresh walk
    assert sorted(walks.listed) == sorted(listed)
    walks.walk()
    assert walks.listed == []


def test_a_directory_stamped_in_the_racy_window_is_listed_until_it_is_old(
    walks: Walks,
) -> None:
    walks.settled()
    write(walks.cfg.root, "jobs/nlp/copy.yaml", "kind: TrainJob\n")
    # The directory changes as late as the moment the runs begin stat-ing: its stamp
    # cannot vouch for it.
    late = time.time_ns() + LATER_NS
    os.utime(walks.cfg.root / "jobs/nlp", ns=(late, late))
    for _ in range(2):
        walks.walk()
        assert walks.listed == ["jobs/nlp"]
    walks.walk(later_ns=2 * LATER_NS)
    walks.walk(later_ns=2 * LATER_NS)
    assert walks.listed == []


def test_directories_with_links_or_reached_through_one_and_packages_are_always_listed(
    walks: Walks,
) -> None:
    root = walks.cfg.root
    (root / "jobs/vision/shared.yaml").symlink_to(root / "runtimes/torch.yaml")
    (root / "linked").symlink_to(root / "jobs/nlp", target_is_directory=True)
    write(root, "deploy/kustomization.yaml", "resources: []\n")
    walks.walk()
    walks.walk()
    # The root holds a link; jobs/nlp is reached again through it (as "linked").
    assert sorted(walks.listed) == [".", "deploy", "jobs/vision"]
    assert "linked/job-0.yaml" not in walks.walk().files  # its real path is walked
    # The link's target changes with no directory stamp changing: still seen.
    (root / "runtimes/torch.yaml").unlink()
    write(root, "runtimes/torch.yaml/inner.yaml", "kind: ClusterTrainingRuntime\n")
    walks.walk()


def test_a_listing_another_walk_of_the_run_took_is_not_kept(walks: Walks) -> None:
    # It was taken before this walk stamped the directory: a change in between would be
    # kept under the new stamp. So only listings a walk takes itself are kept.
    cfg = walks.cfg
    select = path_filter(cfg.include, cfg.exclude)
    seen = Seen()
    discover_files([cfg.root], root=cfg.root, select=select, seen=seen)
    listings = Listings(walks.store, cfg, since_ns=time.time_ns() + LATER_NS)
    discover_files([cfg.root], root=cfg.root, select=select, seen=seen, listings=listings)
    listings.save()
    walks.walk()
    assert sorted(walks.listed) == [".", "jobs", "jobs/nlp", "jobs/vision", "runtimes"]
