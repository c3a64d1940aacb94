"""The exceptions toolmend raises for its caller: one hierarchy under `ToolmendError`.

Errors of the model (malformed markup, invalid arguments) are never exceptions: they are data
(diagnostics, incomplete calls, guidance). This module defines the classes only.
"""

from __future__ import annotations


class ToolmendError(Exception):
    """Base class of every error toolmend raises for its caller (never for the model)."""


class ToolSchemaError(ToolmendError, ValueError):
    """A tool definition the caller passed is unusable; the message names the tool."""


class CannotRenderError(ToolmendError, ValueError):
    """A call holds text its protocol has no way to write (a raw value holding its closer)."""


class UnknownProtocolError(ToolmendError, KeyError):
    """A protocol id that is not registered; the message lists the registered ones."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
