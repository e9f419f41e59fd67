"""Who sent a file: the names of Canvas's and Moodle's bulk downloads, or the file's own."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Canvas's bulk download: `lastfirst_12345_67890_file.ipynb` (`lastfirst_LATE_12345_...` late).
CANVAS = re.compile(r"^(?P<name>[^_/]+?)(?:_LATE)?_(?P<id>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
#: Moodle's: `Full Name_123456_assignsubmission_file_file.ipynb`, or that as a folder.
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_file_(?P<file>.*)$")


@dataclass(frozen=True)
class Student:
    key: str  # the name the grades use: unique in a class
    name: str  # as the platform or the folder gives it
    platform: str = ""  # "canvas", "moodle" or ""
    platform_id: str = ""  # Canvas's user id, Moodle's participant id


def student_of(relative: PurePosixPath | Path) -> Student:
    """The student of a submitted file, from its path inside the submissions folder.

    Canvas: `name_userid_submissionid_file.ipynb` (a late one `name_LATE_userid_...`), the
    name lower-case letters. Moodle: `Full Name_participantid_assignsubmission_file_...`, as
    the file's name or its folder's. Otherwise a subfolder's name, or the file's stem.
    """
    parts = PurePosixPath(*Path(relative).parts).parts
    for part in parts[:1] if len(parts) > 1 else parts:
        match = MOODLE.match(part)
        if match:
            name = match["name"].strip()
            return Student(f"{name}_{match['id']}", name, "moodle", match["id"])
    if len(parts) == 1:
        match = CANVAS.match(parts[0])
        if match:
            return Student(f"{match['name']}_{match['id']}", match["name"], "canvas", match["id"])
        stem = parts[0].removesuffix(".ipynb")
        return Student(stem, stem)
    return Student(parts[0], parts[0])
