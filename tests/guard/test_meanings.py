"""Meaning classes (`meanings`): the cause an error states in common words decides what no
wording family recognised, and never overrides a family that did. The texts are real (the sixth
blind split's, `blind6_errors.json`, read after its first scoring)."""

from __future__ import annotations

import pytest

from toolmend.guard.classify import Classifier
from toolmend.guard.meanings import meaning_of
from toolmend.guard.patterns import Category

CLASSIFIER = Classifier()


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # bun/blind6/003: the last `error:` line names no cause; the one before it does
        (
            "Error: bun install v1.4.5 (a7733435c)\nResolving dependencies\n"
            "error: ConnectionRefused downloading package manifest left-pad\n"
            "error: left-pad@^1.3.0 failed to resolve\n; Error code: 1",
            Category.NETWORK_ERROR,
        ),
        # deno/blind6/003, inside an agent's "Error: ...; Error code: N" wrapper
        (
            'Error: error: Module not found "file:///tmp/h9/w/deno-03/src/server.ts".\n'
            "; Error code: 1",
            Category.FILE_NOT_FOUND,
        ),
        # ruby/blind6/007: an exception class at the end of a traceback line
        (
            "Command: ruby job.rb\nExit Code: 1\nOutput: job.rb:2:in `sleep': execution expired "
            "(Timeout::Error)\n\tfrom job.rb:2:in `<main>'",
            Category.TIMEOUT,
        ),
        # avante.nvim/blind6/006: a tool's bare sentence, no error word at all
        ("insert_line not provided", Category.PARAM_MISSING),
        # ruby/blind6/013: an exception of no known cause is the program's failure
        (
            "calc.rb:2:in `/': divided by 0 (ZeroDivisionError)\n\tfrom calc.rb:2:in `<main>'",
            Category.COMMAND_FAILED,
        ),
    ],
)
def test_an_error_in_no_familys_words_is_read_by_the_cause_it_states(
    text: str, category: Category
) -> None:
    assert CLASSIFIER.classify(text).category is category


def test_a_programs_own_failure_keeps_its_reading_over_a_stated_cause() -> None:
    # redis/blind4/028: a program's "not allowed" is about its own state, not a refusal
    text = "OOM command not allowed when used memory > 'maxmemory'."
    assert meaning_of([text], program=True) is None
    assert meaning_of([text]) == "EI/PERMISSION_DENIED/001"
    # git/heldout9/004: "already exists" of a remote is git's refusal, not a file that exists
    assert meaning_of(["error: remote origin already exists."]) == "EI/COMMAND_FAILED/001"
    # psql/blind4/033: a table that exists, inside a command result
    text = 'Command: psql -c "create table users (id int)"\nOutput: ERROR:  relation "users" '
    text += "already exists\nExit Code: 1"
    assert CLASSIFIER.classify(text).category is Category.COMMAND_FAILED


def test_the_cause_said_last_is_read_first() -> None:
    lines = "warning: request timed out, retrying\nerror: EACCES: permission denied, open 'x'"
    assert meaning_of([lines]) == "EI/PERMISSION_DENIED/001"


def test_a_text_that_states_no_cause_has_no_meaning() -> None:
    assert meaning_of(["Resolving dependencies", "done in 0.4s"]) is None
    assert CLASSIFIER.classify("Resolving dependencies\ndone in 0.4s").known is False
