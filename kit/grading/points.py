"""Points per exercise from a TOML file, and `python -m kit gradebook --points-template`.

    [exercises]
    "2.1" = 2                                         # right: 2 points, anything else 0
    "2.3" = { points = 3, partial = { softmax_over_columns = 1 } }   # named mistake: 1

A `right` row gets the exercise's points; a `wrong` row whose check named a mistake listed
under `partial` gets that many, unless the row also carries `given_edited` or `tampered`;
every other row gets 0. An exercise the file does not list is worth `default` (1).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

from kit.grading.templates import load_templates


@dataclass
class Points:
    """Points per exercise, and partial credit for named mistakes."""

    exercises: dict[str, float] = field(default_factory=dict)
    partial: dict[str, dict[str, float]] = field(default_factory=dict)
    default: float = 1.0

    @classmethod
    def load(cls, path: Path) -> Points:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        book = cls(default=float(data.get("default", 1)))
        for exercise, value in data.get("exercises", {}).items():
            if isinstance(value, dict):
                book.exercises[exercise] = float(value.get("points", book.default))
                partial = {k: float(v) for k, v in value.get("partial", {}).items()}
                too_many = {k: v for k, v in partial.items() if v > book.exercises[exercise]}
                if too_many:
                    raise ValueError(
                        f"{path}: Exercise {exercise}: partial credit above its points: {too_many}"
                    )
                book.partial[exercise] = partial
            else:
                book.exercises[exercise] = float(value)
        return book

    def possible(self, exercise: str) -> float:
        return self.exercises.get(exercise, self.default)

    def of(self, row) -> float:
        if not row.exercise:
            return 0.0
        if row.verdict == "right":
            return self.possible(row.exercise)
        if row.verdict != "wrong" or {"given_edited", "tampered"} & set(row.mistakes):
            return 0.0
        credit = self.partial.get(row.exercise, {})
        return max((credit[m] for m in row.mistakes if m in credit), default=0.0)

    def apply(self, rows, templates) -> None:
        for row in rows:
            row.points = self.of(row)


def number(value: float) -> str:
    """Points as the files write them: `2`, `0.5`."""
    return f"{value:g}"


def template_text(templates, catalogue) -> str:
    """A points file listing every graded exercise, its mistakes as comments."""
    lines = [
        "# Points per exercise for python -m kit grade --points (TOML).",
        "# A right answer gets `points`; a wrong one whose mistake is under `partial` gets that.",
        "default = 1",
        "",
        "[exercises]",
    ]
    every = {name: words for chapter in catalogue.values() for name, words in chapter.items()}
    for template in templates.values():
        described = {c.name: every.get(c.name, {}) for c in template.checks}
        if template.checks:
            lines.append(f"# Chapter {template.number}: {template.title}")
        for check in template.checks:
            lines.append(f'"{check.exercise}" = {{ points = 1, partial = {{ }} }}  # {check.name}')
            for name, words in described.get(check.name, {}).items():
                lines.append(f"#   {name}: {words}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points-template", action="store_true", help="print a points file")
    args = parser.parse_args(argv)
    if not args.points_template:
        parser.print_help()
        return 2
    from lessons.checks import catalogue

    print(template_text(load_templates(), catalogue()), end="")
    return 0
