from __future__ import annotations

import pytest

from trainc.diagnostics import Rule, RuleDoc, Severity
from trainc.rulebook.page import PageError, render_page

IMAGE = Rule(
    "pod.image",
    Severity.ERROR,
    "a container has no image",
    doc=RuleDoc(what="no image", source="`validateContainerCommon`", versions="all"),
)
TAG = Rule(
    "compile.image-tag",
    Severity.WARNING,
    "an untagged image",
    doc=RuleDoc(what="an image without a tag", level_note="(when named)", section="Pin it.\n"),
)
UNDOCUMENTED = Rule("pod.env", Severity.ERROR, "an invalid variable")


def test_rows_show_the_columns_named_in_the_order_listed() -> None:
    template = (
        "# Rules\n\n| rule | what |\n|---|---|\n"
        "@rules code-level what level\ncompile.image-tag\npod.image\n\nEnd.\n"
    )
    page = render_page([IMAGE, TAG, UNDOCUMENTED], template)
    assert page == (
        "# Rules\n\n| rule | what |\n|---|---|\n"
        "| `compile.image-tag` (warning) | an image without a tag | warning (when named) |\n"
        "| `pod.image` | no image | error |\n"
        "\nEnd.\n"
    )


def test_sections_give_each_code_its_heading_and_text() -> None:
    template = (
        "@rules code source versions\npod.image compile.image-tag\n\n@sections\ncompile.image-tag\n"
    )
    page = render_page([IMAGE, TAG], template)
    assert page.endswith("| `compile.image-tag` |  |  |\n\n### `compile.image-tag`\n\nPin it.\n")


@pytest.mark.parametrize(
    ("template", "complaint"),
    [
        (
            "@rules code\npod.image\n",
            "documented rules no @rules directive shows: compile.image-tag",
        ),
        (
            "@rules code\npod.image compile.image-tag pod.env\n",
            "no documentation declared for pod.env",
        ),
        ("@rules code colour\npod.image compile.image-tag\n", "cannot read @rules code colour"),
        ("@table code\npod.image compile.image-tag\n", "cannot read @table"),
        (
            "@rules code\npod.image compile.image-tag\n\n@sections\npod.image\n",
            "pod.image has no section",
        ),
    ],
)
def test_a_template_that_does_not_fit_the_declarations_fails(template: str, complaint: str) -> None:
    with pytest.raises(PageError, match=complaint):
        render_page([IMAGE, TAG, UNDOCUMENTED], template)
