"""The sweeper image's Dockerfile keeps its promises (no Docker engine runs in the tests).

A build needs a Docker engine and the network, so these checks read the file: a pinned
base, a non-root numeric user matching the CronJob's ``runAsUser``, ``trainc`` as the
entrypoint, pip without a cache, no compilers installed, and a build context that holds
what ``pip install .`` needs.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from trainc.build.sweeper import sweeper_objects
from trainc.config.settings import SweeperSettings
from trainc.model.json import get_path

ROOT = Path(__file__).resolve().parents[1]


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) in order, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    parsed = []
    for line in joined.splitlines():
        if line.strip():
            keyword, _, rest = line.strip().partition(" ")
            parsed.append((keyword.upper(), rest.strip()))
    return parsed


def runtime_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last_from:]


def base_images() -> list[str]:
    defaults = dict(
        rest.split("=", 1) for keyword, rest in instructions() if keyword == "ARG" and "=" in rest
    )
    images = []
    for keyword, rest in instructions():
        if keyword == "FROM":
            image = rest.split()[0]
            images.append(re.sub(r"\$\{(\w+)\}", lambda m: defaults[m.group(1)], image))
    return images


def test_every_stage_uses_the_pinned_slim_bookworm_python() -> None:
    images = base_images()
    assert len(images) == 2
    for image in images:
        assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm(@sha256:[0-9a-f]{64})?", image)


def test_the_image_runs_as_the_non_root_user_the_cron_job_names() -> None:
    users = [rest for keyword, rest in runtime_stage() if keyword == "USER"]
    assert users, "the runtime stage must set USER"
    uid, _, gid = users[-1].partition(":")
    cron_job = sweeper_objects(SweeperSettings(image="x"), ["a"], source=None)[1]
    pod = ("spec", "jobTemplate", "spec", "template", "spec", "securityContext")
    assert int(uid) == get_path(cron_job, (*pod, "runAsUser")) != 0
    assert int(gid) == get_path(cron_job, (*pod, "runAsGroup"))


def test_the_entrypoint_is_trainc_in_exec_form() -> None:
    (entrypoint,) = [rest for keyword, rest in runtime_stage() if keyword == "ENTRYPOINT"]
    assert entrypoint == '["trainc"]'


def test_pip_installs_the_project_without_a_cache_and_nothing_else_is_installed() -> None:
    runs = [rest for keyword, rest in instructions() if keyword == "RUN"]
    assert any(
        shlex.split(run)[:2] == ["pip", "install"]
        and "--no-cache-dir" in run
        and run.endswith(" .")
        for run in runs
    )
    assert not any(re.search(r"apt-get|apk |gcc|build-essential", run) for run in runs)
    assert not [rest for keyword, rest in runtime_stage() if keyword == "RUN"]


def test_the_build_context_holds_what_pip_install_needs() -> None:
    copied = [
        shlex.split(rest)[:-1]
        for keyword, rest in instructions()
        if keyword == "COPY" and not rest.startswith("--from")
    ]
    sources = {source.rstrip("/") for group in copied for source in group}
    # The wheel force-includes schemas/ and policies/; the metadata reads README.md.
    assert sources == {"pyproject.toml", "README.md", "trainc", "schemas", "policies"}
    assert all((ROOT / source).exists() for source in sources)
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    assert "*" in ignore  # an allow-list: nothing else (.git, caches) is sent
    assert {f"!{source}" for source in sources} <= {line.rstrip("/") for line in ignore}
