"""The demo's bundled failure cases: real model outputs and agent histories, with provenance.

This module owns reading `cases/cases.json` (shipped in the package) into `DemoCase` records,
turning them into scripts for the scripted upstream, and saying whether what an agent received
is right for a case. Each case names its source and licence; the demo prints them. It never
starts a server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from toolmend.server.demo.scripted import Answer, Script

CASES_FILE = "cases.json"


@dataclass(frozen=True, slots=True)
class Received:
    """What an agent got back: visible text, tool calls `(name, arguments)`, flagged calls."""

    text: str
    calls: list[tuple[str, Any]]
    flagged: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class DemoCase:
    id: str
    title: str
    model: str
    tools: list[dict[str, Any]]
    messages: list[dict[str, Any]]
    script: Script
    expect: Mapping[str, Any]
    provenance: Mapping[str, str]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> DemoCase:
        guided = data.get("guided")
        return cls(
            id=data["id"],
            title=data["title"],
            model=data["model"],
            tools=list(data["tools"]),
            messages=list(data["messages"]),
            script=Script(
                Answer.from_dict(data["answer"]),
                Answer.from_dict(guided) if guided else None,
            ),
            expect=data["expect"],
            provenance=data["provenance"],
        )

    def problems(self, received: Received) -> list[str]:
        """Why `received` is not what an agent should get for this case (empty: right)."""
        out = []
        wanted = [(c["name"], c["arguments"]) for c in self.expect.get("calls", ())]
        if received.calls != wanted:
            out.append(f"tool calls {received.calls!r}, wanted {wanted!r}")
        for marker in self.expect.get("text_excludes", ()):
            if marker in received.text:
                out.append(f"the visible text still holds {marker!r}")
        if received.flagged:
            out.append(f"flagged calls: {received.flagged!r}")
        return out


def load_cases() -> list[DemoCase]:
    """The bundled cases, in order."""
    text = resources.files("toolmend.server.demo").joinpath("cases", CASES_FILE).read_text("utf-8")
    return [DemoCase.from_dict(entry) for entry in json.loads(text)]


def scripts_for(cases: Sequence[DemoCase]) -> dict[str, Script]:
    """The scripted upstream's scripts: one model id per case."""
    return {case.model: case.script for case in cases}
