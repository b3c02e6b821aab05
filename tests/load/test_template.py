from __future__ import annotations

import pytest

from trainc.config.limits import InputLimits
from trainc.diagnostics import Diagnostic
from trainc.load.source import SourceFile
from trainc.load.template import render_template
from trainc.model.json import JsonObject


def render(template: str, values: JsonObject | None = None, **limits: int) -> SourceFile:
    result = render_template("t.yaml.j2", template, values or {}, InputLimits(**limits))
    assert isinstance(result, SourceFile), result
    return result


def fail(template: str, values: JsonObject | None = None, **limits: int) -> Diagnostic:
    result = render_template("t.yaml.j2", template, values or {}, InputLimits(**limits))
    assert isinstance(result, Diagnostic), result
    return result


def test_values_are_top_level_names_and_values() -> None:
    source = render("a: {{ image }}\nb: {{ values.image }}\n", {"image": "torch"})
    assert source.text == "a: torch\nb: torch\n"
    assert source.original == "a: {{ image }}\nb: {{ values.image }}\n"


def test_loop_lines_map_to_the_loop_body_on_every_iteration() -> None:
    template = (
        "kind: List\n"  # 1
        "items:\n"  # 2
        "{% for n in names %}\n"  # 3
        "- name: {{ n }}\n"  # 4
        "  x: 1\n"  # 5
        "{% endfor %}\n"  # 6
        "end: true\n"  # 7
    )
    source = render(template, {"names": ["a", "b"]})
    lines = source.text.split("\n")
    assert lines[:9] == [
        "kind: List",
        "items:",
        "",
        "- name: a",
        "  x: 1",
        "",
        "- name: b",
        "  x: 1",
        "",
    ]
    assert [source.user_line(i + 1) for i, line in enumerate(lines) if line.strip()] == [
        1,
        2,
        4,
        5,
        4,
        5,
        7,
    ]


def test_multi_line_value_maps_to_the_expression_line() -> None:
    source = render("a: 1\nscript: {{ body }}\nb: 2\n", {"body": "|\n  one\n  two"})
    assert source.text == "a: 1\nscript: |\n  one\n  two\nb: 2\n"
    assert [source.user_line(n) for n in range(1, 6)] == [1, 2, 2, 2, 3]


def test_whitespace_control_and_comments_keep_lines_right() -> None:
    template = "{# a\nlong comment #}a: 1\n{%- if true %}\nb: 2\n{%- endif %}\nc: 3\n"
    source = render(template)
    assert source.text == "a: 1\nb: 2\nc: 3\n"
    assert [source.user_line(n) for n in range(1, 4)] == [2, 4, 6]


def test_filter_indentation_does_not_shift_lines() -> None:
    template = "a:\n{% filter indent(2, first=true) %}\nb: 1\nc: {{ v }}\n{% endfilter %}\n"
    source = render(template, {"v": 2})
    assert source.text == "a:\n  \n  b: 1\n  c: 2\n  \n"
    assert [source.user_line(n) for n in (3, 4)] == [3, 4]


def test_syntax_error() -> None:
    result = fail("a: 1\nb: {% if %}\n")
    assert (result.code, result.line) == ("load.template-syntax", 2)


def test_unknown_filter_is_a_syntax_error() -> None:
    result = fail("a: 1\n\nb: {{ x | nope }}\n", {"x": 1})
    assert (result.code, result.line) == ("load.template-syntax", 3)


def test_undefined_value_names_it_and_its_line() -> None:
    result = fail("a: 1\n{% for i in [1] %}\nb: {{ missing_value }}\n{% endfor %}\n")
    assert (result.code, result.line) == ("load.template-undefined", 3)
    assert "'missing_value' is undefined" in result.message


def test_nothing_random_renders_a_template() -> None:
    """Found by the fuzz run after validation began resolving every TrainJob: ``lipsum()``
    rendered other text each time."""
    result = fail("a: {{ lipsum(1) }}\n")
    assert (result.code, result.line) == ("load.template-undefined", 1)
    assert "'lipsum' is undefined" in result.message
    result = fail("a: 1\nb: {{ [1, 2] | random }}\n")
    assert (result.code, result.line) == ("load.template-syntax", 2)
    assert render("a: {{ range(3) | list | sum }}\n").text == "a: 3\n"


def test_undefined_attribute() -> None:
    result = fail("a:\n  b: {{ values.team.name }}\n", {"team": {}})
    assert (result.code, result.line) == ("load.template-undefined", 2)
    assert "no attribute 'name'" in result.message


@pytest.mark.parametrize(
    "expression",
    [
        "''.__class__.__mro__[1].__subclasses__()",
        "cycler.__init__.__globals__",
        "joiner.__init__.__globals__['os']",
        "values.__class__",
    ],
)
def test_python_internals_are_out_of_reach(expression: str) -> None:
    result = fail(f"a: 1\nb: {{{{ {expression} }}}}\n")
    assert (result.code, result.line) == ("load.template-security", 2)


@pytest.mark.parametrize(
    "expression", ["'x' * 10 ** 9", "[1] * 10 ** 9", "2 ** (10 ** 10)", "10 ** 9 * 'x'"]
)
def test_memory_bombs_are_refused_before_computing(expression: str) -> None:
    result = fail(f"a: {{{{ {expression} }}}}\n")
    assert (result.code, result.line) == ("load.template-security", 1)


def test_ordinary_arithmetic_still_works() -> None:
    assert render("a: {{ 2 ** 10 }}\nb: {{ 'ab' * 2 }}\nc: {{ 3 * 4 }}\n").text == (
        "a: 1024\nb: abab\nc: 12\n"
    )


@pytest.mark.parametrize(
    ("template", "error"),
    [("a: 1\nb: {{ 1 / 0 }}\n", "ZeroDivisionError"), ("a: 1\nb: {{ 1 + 'x' }}\n", "TypeError")],
)
def test_other_render_failures(template: str, error: str) -> None:
    result = fail(template)
    assert (result.code, result.line) == ("load.template-error", 2)
    assert error in result.message


def _nested(depth: int, template: str) -> Diagnostic:
    """The finding on ``template`` rendered ``depth`` calls deeper into the stack."""
    return fail(template) if depth == 0 else _nested(depth - 1, template)


def test_a_runaway_recursion_is_one_finding_whatever_the_depth_of_the_caller() -> None:
    template = "a: 1\n{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}\n"
    findings = {_nested(depth, template) for depth in range(6)}
    assert [(d.code, d.line, d.message) for d in findings] == [
        (
            "load.template-error",
            2,
            "rendering failed: RecursionError: maximum recursion depth exceeded",
        )
    ]


def test_includes_cannot_read_files() -> None:
    result = fail("{% include '/etc/passwd' %}\n")
    assert (result.code, result.line) == ("load.template-error", 1)


def test_rendered_output_is_bounded_while_generating() -> None:
    result = fail("{% for i in range(100000) %}line: {{ i }}\n{% endfor %}", max_file_bytes=1000)
    assert (result.code, result.file) == ("load.too-large", "t.yaml.j2")
    assert result.message.startswith("the rendered template is larger")
