"""Which files a report reads: paths, directories and globs resolved into a list of log files.

This module owns the selection of files and the first look at each one: a literal path that does
not exist is the caller's mistake (`ReportError`); a glob or a directory that holds nothing is an
empty selection, not an error; a file that is plainly binary (a NUL byte near its start) or a
`.gz` file that is not gzip is set aside with its reason instead of being read. For a `.gz`
stream that ends early (a log rotated or copied mid-write), `salvage_gzip` decompresses it as
far as it goes, so its lines up to the cut still count. It never parses a line (that is `store`).
"""

from __future__ import annotations

import contextlib
import glob
import gzip
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from toolmend.model import ToolmendError

#: Bytes read from the start of a file to tell text from binary: enough for a few log lines,
#: little enough that a directory of thousands of files is sniffed in milliseconds.
SNIFF_BYTES = 8192
GZIP_MAGIC = b"\x1f\x8b"
#: zlib's window-bits value that reads a gzip header and trailer.
GZIP_WBITS = 16 + zlib.MAX_WBITS
#: Compressed bytes fed to zlib at a time while salvaging.
SALVAGE_PIECE = 1 << 20
GLOB_CHARACTERS = frozenset("*?[")


class ReportError(ToolmendError):
    """A caller mistake in a report request (a missing path, a bad time, a missing extra)."""


@dataclass(frozen=True)
class SkippedFile:
    """A selected file that was not read as a log, and why."""

    path: str
    reason: str


@dataclass
class Selection:
    """The files a report reads, and those it set aside."""

    readable: list[str] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)

    @property
    def file_count(self) -> int:
        return len(self.readable) + len(self.skipped)


def _expand(path: str) -> list[str]:
    """The regular files a path names: itself, a directory's files (recursively), or a glob."""
    if any(ch in GLOB_CHARACTERS for ch in path) and not os.path.exists(path):
        matches = sorted(glob.glob(path, recursive=True))
        return [f for m in matches for f in _expand(m)]
    if os.path.isdir(path):
        found: list[str] = []
        for root, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            found.extend(os.path.join(root, f) for f in sorted(files) if not f.startswith("."))
        return found
    if os.path.isfile(path):
        return [path]
    raise ReportError(f"no such file or directory: {path}")


def _gzip_problem(path: str) -> str | None:
    """Why a `.gz` file cannot be read as gzip, or None when its stream starts well."""
    try:
        with open(path, "rb") as handle:
            if handle.read(2) != GZIP_MAGIC:
                return "not gzip data despite its .gz name"
        with gzip.open(path, "rb") as stream:
            head = stream.read(SNIFF_BYTES)
    except EOFError:
        return None  # cut short early on: the store salvages what it holds
    except (OSError, zlib.error) as exc:
        return f"unreadable gzip stream ({exc})"
    return "binary data, not a text log" if b"\x00" in head else None


def _text_problem(path: str) -> str | None:
    """Why a plain file cannot be a text log, or None when it may be one."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"
    if head.startswith(GZIP_MAGIC):
        return "gzip data without a .gz name"
    return "binary data, not a text log" if b"\x00" in head else None


def salvage_gzip(path: str, scratch: Path) -> str:
    """Decompress what a cut-short gzip stream holds into a file in `scratch`; return its path.

    zlib is fed the file piece by piece and every byte it gives is kept, up to the cut or the
    first corrupt byte (the cut line then counts as truncated); `gzip.open` would instead drop
    the last buffer it had decoded when it meets the early end. Streams written one after
    another in one file (as `cat a.gz b.gz` makes) are each decompressed.
    """
    target = scratch / f"salvaged-{len(list(scratch.iterdir()))}.log"
    decoder = zlib.decompressobj(wbits=GZIP_WBITS)
    with open(path, "rb") as source, open(target, "wb") as out, contextlib.suppress(zlib.error):
        while piece := source.read(SALVAGE_PIECE):
            while piece:
                out.write(decoder.decompress(piece))
                piece = b""
                if decoder.eof:  # the end of one gzip member: another may follow
                    piece, decoder = decoder.unused_data, zlib.decompressobj(wbits=GZIP_WBITS)
    return str(target)


def select_files(paths: list[str]) -> Selection:
    """Resolve `paths` into the files to read, each once, in a stable order."""
    selection = Selection()
    seen: set[str] = set()
    for path in paths:
        for file in _expand(path):
            real = os.path.realpath(file)
            if real in seen:
                continue
            seen.add(real)
            problem = _gzip_problem(file) if file.endswith(".gz") else _text_problem(file)
            if problem is None:
                selection.readable.append(file)
            else:
                selection.skipped.append(SkippedFile(file, problem))
    return selection
