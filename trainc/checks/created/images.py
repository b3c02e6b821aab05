"""Images that are not pinned: no tag, or the tag ``latest``, and no digest.

The kubelet pulls such an image by a name whose target the registry may move at any time
(an image without a tag is ``latest``,
https://kubernetes.io/docs/concepts/containers/images/#image-names), so two pods of one
training, or a restart after a push, can run different code that no commit shows; and
with ``imagePullPolicy`` defaulting to ``Always`` for them, every pod start depends on the
registry. A digest (``@sha256:...``) pins an image whatever its tag says.

Which pods run an image is not always what the TrainJob suggests: ``trainer.image``
replaces only the ``node`` container of the replicatedJobs labelled as the trainer step
(:mod:`trainc.plugins.jobset`), so the others keep the runtime's image (upstream's
DeepSpeed runtime: the launcher gets ``trainer.image``, the ``node`` workers keep
``deepspeed-runtime``). One finding per
written image value therefore names the replicatedJobs and containers that run it, and
sits at the line it came from: the runtime, the TrainJob or a runtime patch.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import field
from typing import Final

from trainc.checks.shared.locate import locate
from trainc.diagnostics import Diagnostic, Rule, RuleDoc, Severity
from trainc.model.json import FieldPath, as_list, as_object, get_path
from trainc.records import dataclass
from trainc.resolve.provenance import Derived, Origin, Written
from trainc.resolve.resolved import ResolvedJob

COMPILE_IMAGE_TAG = Rule(
    "compile.image-tag",
    Severity.WARNING,
    "a pod runs an image without a tag or with the tag latest: what runs changes unseen",
    doc=RuleDoc(
        what="a container image without a tag, or tagged `latest`, and without a digest",
        section=(
            "An image without a tag is `latest`, and a tag such as `latest` is moved by "
            "every push:\n"
            "two pods of one training, or a pod restarted after a push, can run different "
            "code that no\n"
            "commit shows, and the kubelet pulls such an image on every start\n"
            "([image "
            "names](https://kubernetes.io/docs/concepts/containers/images/#image-names)). "
            "A\n"
            "digest (`@sha256:...`) pins an image whatever its tag says; a `:` before the "
            "last `/` is a\n"
            "registry's port, not a tag. The check reads the pods as compiled, init "
            "containers\n"
            "included, and reports each image value once, at the line that wrote it (the "
            "runtime, the\n"
            "TrainJob's `trainer.image` or a runtime patch), naming the containers and "
            "replicatedJobs\n"
            "that run it.\n"
            "\n"
            "`trainer.image` does not reach every pod: it replaces the image of the "
            "`node` container\n"
            "of the replicatedJobs labelled `trainer.kubeflow.org/trainjob-ancestor-step: "
            "trainer` only. In upstream's DeepSpeed runtime the `launcher` gets it while "
            "the `node` workers keep\n"
            "the runtime's untagged `deepspeed-runtime`, and the finding on the runtime's "
            "line says so:\n"
            "\n"
            "```\n"
            "runtimes/deepspeed_distributed.yaml:47:23: warning[compile.image-tag]: image "
            "'ghcr.io/kubeflow/trainer/deepspeed-runtime' has no tag, so what runs can "
            "change without a commit; it runs in container 'node' of replicatedJob "
            "'node'; the TrainJob's trainer.image reaches only replicatedJob 'launcher', "
            "the others keep the runtime's image\n"
            "```\n"
            "\n"
            "Pin the runtime's images (a release tag such as `:v2.1.0`, or a digest), or "
            "give the\n"
            "workers the TrainJob's image with a runtime patch.\n"
        ),
    ),
)


CODE: Final = COMPILE_IMAGE_TAG.code

_POD: Final[FieldPath] = ("template", "spec", "template", "spec")
_TRAINER_IMAGE: Final[FieldPath] = ("spec", "trainer", "image")
_LATEST: Final = "latest"


def image_tag(image: str) -> str | None:
    """The tag of an image reference, None without one; a ``:`` before the last ``/`` is a
    registry's port, not a tag."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    return last.split(":", 1)[1] if ":" in last else None


def is_unpinned(image: str) -> bool:
    """Whether ``image`` has neither a digest nor a tag other than ``latest``."""
    return "@" not in image and image_tag(image) in {None, _LATEST}


@dataclass(slots=True)
class _Use:
    """One written image value and the containers that run it."""

    image: str
    origin: Origin
    containers: list[str] = field(default_factory=list)


def check_image_tags(job: ResolvedJob) -> list[Diagnostic]:
    """A finding per unpinned image value, naming the pods that run it."""
    uses: dict[tuple[str, FieldPath, str], _Use] = {}
    trainer_jobs: list[str] = []
    for path, image, where, rjob in _images(job):
        origin = job.origin(path)
        written = origin.cause if isinstance(origin, Derived) else origin
        if _is_trainer_image(job, written):
            trainer_jobs.append(rjob)
        if is_unpinned(image):
            key = (written.source.loaded.path, written.path, image)
            uses.setdefault(key, _Use(image, origin)).containers.append(where)
    return [
        locate(
            use.origin,
            CODE,
            _message(job, use, trainer_jobs),
            hint="pin it: a version tag (`:v1.2.3`) or a digest (`@sha256:...`)",
        )
        for use in uses.values()
    ]


def _message(job: ResolvedJob, use: _Use, trainer_jobs: list[str]) -> str:
    tag = image_tag(use.image)
    what = "has no tag" if tag is None else "is tagged latest"
    runs = ", ".join(use.containers)
    text = f"image {use.image!r} {what}, so what runs can change without a commit; "
    text += f"it runs in {runs}"
    written = use.origin.cause if isinstance(use.origin, Derived) else use.origin
    if trainer_jobs and not _is_trainer_image(job, written):
        reached = ", ".join(repr(name) for name in dict.fromkeys(trainer_jobs))
        text += (
            f"; the TrainJob's trainer.image reaches only replicatedJob {reached}, the others "
            "keep the runtime's image"
        )
    return text


def _is_trainer_image(job: ResolvedJob, written: Written) -> bool:
    return written.source is job.trainjob and written.path == _TRAINER_IMAGE


def _images(job: ResolvedJob) -> Iterator[tuple[FieldPath, str, str, str]]:
    """``(path, image, container in words, replicatedJob)`` of each container's image."""
    for job_index, item in enumerate(as_list(job.jobset_spec.get("replicatedJobs"))):
        rjob = as_object(item)
        rjob_name = str(rjob.get("name"))
        pod = as_object(get_path(rjob, _POD))
        for kind in ("initContainers", "containers"):
            for index, container in enumerate(as_list(pod.get(kind))):
                image = as_object(container).get("image")
                if isinstance(image, str) and image.strip():
                    name = as_object(container).get("name")
                    where = f"container {name!r} of replicatedJob {rjob_name!r}"
                    path = ("replicatedJobs", job_index, *_POD, kind, index, "image")
                    yield path, image.strip(), where, rjob_name
