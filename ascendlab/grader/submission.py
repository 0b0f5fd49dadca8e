"""A submission as Python source: a .py file as it is, a notebook as its graded cells.

Notebooks (.ipynb, read with the stdlib json module; nbformat is not needed):
  * cells tagged `solution` are the submission, in order (with the `parameters` cell); if
    none is tagged, every code cell is, except those tagged `skip-grading`;
  * a cell tagged `parameters` (papermill's convention) is followed by the grader's injected
    parameters (`GRADING = True`), so a notebook can skip its own demos while graded;
  * IPython magics and shell escapes (lines starting with % or !) are dropped.
With papermill installed (`pip install 'ascendlab[notebook]'`), the grader executes those cells
in a Jupyter kernel inside the sandbox (grader/notebook.py): papermill injects the parameters,
each cell has an explicit timeout, and a failure names the cell. Without it, it runs the same
cells joined into one script (magics dropped), as a .py file. The static rules read the
joined script; `line_map` turns its line numbers back into cells.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MAX_SOURCE_BYTES = 2 * 1024 * 1024
INJECTED = "GRADING = True  # injected by ascendlab's grader after the `parameters` cell\n"


class SubmissionError(ValueError):
    """The file is not a submission the grader can read."""


@dataclass(frozen=True)
class Submission:
    """Source code to grade, and where it came from."""

    name: str  # file name, for reports
    source: str
    kind: str  # "py" | "ipynb"
    notes: tuple[str, ...] = ()
    # notebooks: the graded cells as (cell number from 1, tags, source); the joined source's
    # line i+1 comes from cell line_map[i] = (cell number, line in the cell), 0 for injected
    cells: tuple[tuple[int, tuple[str, ...], str], ...] = ()
    line_map: tuple[tuple[int, int], ...] = ()
    tagged: bool = False  # some cell is tagged `solution`
    sha256: str = ""  # of the exact bytes graded (submit stores these bytes, and this hash)
    raw: str = ""  # those bytes as text (UTF-8 checked): what the leaderboard stores

    def where(self, line: int) -> str:
        """'cell 4, line 2' for line `line` of the source ('line N' for a .py)."""
        if self.kind != "ipynb" or not 0 < line <= len(self.line_map):
            return f"line {line}"
        cell, at = self.line_map[line - 1]
        return f"cell {cell}, line {at}" if cell else f"line {line} (injected by the grader)"


def _cell_source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _check_cell(c: object, i: int) -> None:
    """A cell as nbformat 4 has it, or SubmissionError naming the cell and the field."""
    if not isinstance(c, dict):
        raise SubmissionError(f"notebook cell {i} is not an object")
    meta = c.get("metadata", {})
    if not isinstance(meta, dict):
        raise SubmissionError(f"notebook cell {i}: metadata must be an object, got "
                              f"{type(meta).__name__}")
    tags = meta.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise SubmissionError(f"notebook cell {i}: metadata.tags must be a list of strings")
    src = c.get("source", "")
    if not (isinstance(src, str) or isinstance(src, list)
            and all(isinstance(line, str) for line in src)):
        raise SubmissionError(f"notebook cell {i}: source must be a string or a list of "
                              f"strings, got {type(src).__name__}")


def _tags(c: dict) -> set[str]:
    t = c.get("metadata", {}).get("tags", [])
    return set(t) if isinstance(t, list) else set()


def notebook_cells(data: dict) -> tuple[list[tuple[int, tuple[str, ...], str]], list[str], bool]:
    """The graded cells of a notebook dict as (cell number from 1, tags, source), notes, and
    whether some cell is tagged `solution`."""
    cells = data.get("cells")
    if not isinstance(cells, list):
        raise SubmissionError("not a Jupyter notebook: no cells")
    for i, c in enumerate(cells):
        _check_cell(c, i)
    code = [(i + 1, c) for i, c in enumerate(cells) if c.get("cell_type") == "code"]
    tagged = any("solution" in _tags(c) for _i, c in code)
    if tagged:
        chosen = [(i, c) for i, c in code if _tags(c) & {"solution", "parameters"}]
        notes = [f"graded the {sum('solution' in _tags(c) for _i, c in chosen)} cell(s) "
                 "tagged `solution`"]
    else:
        chosen = [(i, c) for i, c in code if "skip-grading" not in _tags(c)]
        notes = ["no cell is tagged `solution`: graded every code cell (tag the cells of your "
                 "solution `solution`, or the others `skip-grading`)"]
    return ([(i, tuple(sorted(_tags(c))), _cell_source(c)) for i, c in chosen], notes, tagged)


def notebook_source(data: dict) -> tuple[str, list[str]]:
    """The graded source of a notebook dict, and notes about what was done to it."""
    src, notes, _map = _joined(*notebook_cells(data)[:2])
    return src, notes


def _joined(cells: list[tuple[int, tuple[str, ...], str]], notes: list[str]
            ) -> tuple[str, list[str], list[tuple[int, int]]]:
    """The cells joined into one script (magics and ! lines dropped, GRADING injected after the
    parameters cell), the notes, and each line's (cell, line in cell)."""
    out: list[str] = []
    where: list[tuple[int, int]] = []
    dropped = 0
    for number, tags, src in cells:
        for k, line in enumerate(src.splitlines(), 1):
            if line.lstrip().startswith(("%", "!")):
                dropped += 1
                line = ""  # keep the numbering: the line stays, empty
            out.append(line)
            where.append((number, k))
        out.append("")
        where.append((number, len(src.splitlines()) + 1))
        if "parameters" in tags:
            out.append(INJECTED.rstrip("\n"))
            where.append((0, 0))
    notes = list(notes)
    if dropped:
        notes.append(f"{dropped} IPython magic / shell line(s) left out of the source rules "
                     "(and out of the run when the notebook runs as one script)")
    return "\n".join(out) + "\n", notes, where


def shown_name(name: str | bytes) -> str:
    """A file name as one printable line: bytes that are not UTF-8 as \\xNN, control
    characters (a newline, an escape sequence) as \\n, \\x1b ...; a name that needs no
    escaping is returned as it is."""
    if isinstance(name, bytes):
        text = name.decode("utf-8", "backslashreplace")
    else:  # os.listdir's str: undecodable bytes come back as lone surrogates
        text = os.fsencode(name).decode("utf-8", "backslashreplace")
    out = []
    for ch in text:
        if ch == "\\" or ch.isprintable():
            out.append(ch)
        else:
            out.append(repr(ch)[1:-1] if ch in "\n\r\t" else f"\\x{ord(ch):02x}"
                       if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
    return "".join(out)


def read_file(path: str | os.PathLike, limit: int = MAX_SOURCE_BYTES, *,
              dir_fd: int | None = None, single_link: bool = False) -> bytes:
    """The bytes of a regular file, opened once and safely: lstat first (a symlink, a FIFO, a
    device or a file over `limit` bytes is refused before it is opened), then O_NOFOLLOW |
    O_NONBLOCK, the opened file checked to be the one lstat saw, and at most limit + 1 bytes
    read (a file that grew meanwhile is refused too). SubmissionError names what is wrong.
    dir_fd: `path` is a name in that open folder (a batch: the folder is opened once);
    single_link: refuse a file with other hard links (in a batch folder, a link to a file of
    someone else's)."""
    name = shown_name(os.path.basename(os.fspath(path)) or os.fspath(path))
    try:
        st = os.lstat(path, dir_fd=dir_fd)
    except OSError as e:
        raise SubmissionError(f"{name}: cannot be read ({e.strerror or e})") from None
    if stat.S_ISLNK(st.st_mode):
        raise SubmissionError(f"{name} is a symbolic link; the grader reads only regular "
                              "files (copy the file in instead of linking it)")
    if not stat.S_ISREG(st.st_mode):
        raise SubmissionError(f"{name} is not a regular file; the grader reads only regular "
                              "files")
    if single_link and st.st_nlink > 1:
        raise SubmissionError(f"{name} has {st.st_nlink} hard links; in a batch folder the "
                              "grader reads only files with one (copy the file in)")
    if st.st_size > limit:
        raise SubmissionError(f"{name} is {st.st_size:,} B; submissions are at most "
                              f"{limit:,} B")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), dir_fd=dir_fd)
    except OSError as e:
        raise SubmissionError(f"{name}: cannot be opened ({e.strerror or e})") from None
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or not stat.S_ISREG(now.st_mode):
            raise SubmissionError(f"{name} was replaced while the grader opened it")
        chunks, got = [], 0
        while got <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
    except OSError as e:
        raise SubmissionError(f"{name}: read failed ({e.strerror or e})") from None
    finally:
        os.close(fd)
    if got > limit:
        raise SubmissionError(f"{name} grew past {limit:,} B while it was read; submissions "
                              f"are at most {limit:,} B")
    return b"".join(chunks)


def load_submission(path: str | Path, data: bytes | None = None) -> Submission:
    """Read a .py or .ipynb submission (from `data` when given, e.g. a batch job's bytes; else
    with read_file: once, no symlink, size checked before reading). The Submission keeps the
    sha256 and the text of exactly these bytes."""
    p = Path(path)
    name = shown_name(p.name)  # for reports: one printable line
    raw = read_file(p) if data is None else data
    digest = hashlib.sha256(raw).hexdigest()
    if len(raw) > MAX_SOURCE_BYTES:
        raise SubmissionError(f"{name} is {len(raw):,} B; submissions are at most "
                              f"{MAX_SOURCE_BYTES:,} B")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise SubmissionError(f"{name} is not UTF-8 text: {e}") from None
    if p.suffix == ".py":
        return Submission(name, text, "py", sha256=digest, raw=text)
    if p.suffix == ".ipynb":
        try:
            nb = json.loads(text)
        except json.JSONDecodeError as e:
            raise SubmissionError(f"{name} is not valid notebook JSON: {e}") from None
        if not isinstance(nb, dict):
            raise SubmissionError(f"{name} is not a Jupyter notebook")
        cells, notes, tagged = notebook_cells(nb)
        source, notes, where = _joined(cells, notes)
        return Submission(name, source, "ipynb", tuple(notes), tuple(cells), tuple(where),
                          tagged, sha256=digest, raw=text)
    raise SubmissionError(f"{name}: submissions are .py files or .ipynb notebooks")


__all__ = ["Submission", "SubmissionError", "load_submission", "notebook_cells",
           "notebook_source", "read_file", "shown_name"]
