"""Which image references are pinned: a tag other than latest, or a digest."""

from __future__ import annotations

import pytest

from trainc.checks.created.images import image_tag, is_unpinned


@pytest.mark.parametrize(
    ("image", "tag", "unpinned"),
    [
        ("ghcr.io/kubeflow/trainer/deepspeed-runtime", None, True),
        ("pytorch/pytorch:latest", "latest", True),
        ("pytorch/pytorch:2.13.0-cuda13.0-cudnn9-runtime", "2.13.0-cuda13.0-cudnn9-runtime", False),
        ("localhost:5000/train", None, True),  # a registry's port is no tag
        ("localhost:5000/train:1.0", "1.0", False),
        ("busybox@sha256:" + "a" * 64, None, False),  # a digest pins it
        ("busybox:latest@sha256:" + "a" * 64, "latest", False),
    ],
)
def test_tags_and_pins(image: str, tag: str | None, unpinned: bool) -> None:
    assert image_tag(image) == tag
    assert is_unpinned(image) is unpinned
