"""Shared helpers for the guard tests: fixture loading."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


def load_cases(name: str) -> list[dict[str, Any]]:
    """The rows of `tests/guard/data/<name>`, each a dict."""
    rows: list[dict[str, Any]] = json.loads((DATA / name).read_text(encoding="utf-8"))
    return rows
