"""What an argument object with a repeated key or a trailing comma means, in every format.

One rule, used by every protocol's reader, so that the same slip reads the same way whatever
format the model wrote it in:

* a key given twice follows the format's `DuplicateRule`: `REJECT` ends the call incomplete
  with `duplicate_key_error`; `LAST_WINS` keeps the last value and records the repair
  `DUPLICATE_KEPT`, so a kept duplicate is never silent;
* a trailing comma before a closing brace or bracket is a safe repair (`TRAILING_COMMA`) under
  the lenient policy and an error (`TRAILING_COMMA_ERROR`) under strict: nothing is lost or
  guessed by dropping it.

This module holds the rule and its names only; readers detect the cases themselves.
"""

from __future__ import annotations

from enum import Enum

#: The repair recorded when a duplicated key kept its last value.
DUPLICATE_KEPT = "duplicate-key-last-wins"
#: The repair recorded when a trailing comma was dropped.
TRAILING_COMMA = "trailing-comma"
TRAILING_COMMA_ERROR = "a trailing ',' before the closing brace"


class DuplicateRule(str, Enum):  # noqa: UP042 - a str-valued Enum like Policy
    """What a key given twice in one call's arguments means in a format."""

    REJECT = "reject"
    LAST_WINS = "last-wins"


def duplicate_key_error(key: str) -> str:
    """The error of a call whose argument `key` is given twice (under `DuplicateRule.REJECT`)."""
    return f"argument {key[:64]!r} is given twice"
