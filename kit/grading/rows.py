"""A grading row (one student, one exercise), the verdicts and the faults' words."""

from __future__ import annotations

from dataclasses import dataclass, field

VERDICTS = ("right", "wrong", "unanswered", "error", "timeout")
COLUMNS = ("student", "notebook", "exercise", "verdict", "mistake")


FAULTS = {
    "given_edited": "changed an input the exercise gives (judged with the chapter's)",
    "tampered": "patched lessons' checking code inside their notebook",
    "check_deleted": "deleted the exercise's check cell",
    "kernel_died": "crashed the kernel",
    "timed_out": "ran past the time limit (an endless loop, or a very slow cell)",
    "not_a_notebook": "sent a file that is not a notebook",
    "unknown_chapter": "sent a notebook of no known chapter",
}


# --- the templates: the chapters' exercises and their checks --------------------------------


@dataclass
class Row:
    student: str
    notebook: str
    exercise: str
    verdict: str
    mistakes: list[str] = field(default_factory=list)
    message: str = ""
    check: str = ""
    file: str = ""  # the submitted file, relative to the submissions folder
    points: float | None = None  # set by the gradebook

    @property
    def mistake(self) -> str:
        return ";".join(self.mistakes)

    def as_dict(self) -> dict:
        return {
            "student": self.student,
            "notebook": self.notebook,
            "exercise": self.exercise,
            "verdict": self.verdict,
            "mistake": self.mistake,
            "check": self.check,
            "message": self.message,
            "file": self.file,
            "points": self.points,
        }

    @classmethod
    def from_dict(cls, data: dict) -> Row:
        return cls(
            data["student"],
            data["notebook"],
            data["exercise"],
            data["verdict"],
            [m for m in data.get("mistake", "").split(";") if m],
            data.get("message", ""),
            data.get("check", ""),
            data.get("file", ""),
            data.get("points"),
        )
