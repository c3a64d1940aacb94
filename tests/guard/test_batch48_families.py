"""Batch 48's families (guard24): the failures the tenth blind split showed, read after
`batch48_errors.json` was first scored. Each case is a text the module that produced a miss sends
(OpenHands' runtime, agno, crush, LM Studio, Strands around botocore, httpx, the Vercel AI SDK,
dash, SWE-agent, lz4, zstd), or another agent's wording of the same failure; each neighbour is a
text the family must leave to its own category."""

from __future__ import annotations

import json

import pytest

from toolmend.guard import classify_error

OPENHANDS_TRAILER = "\n[Error occurred in processing last action]"

CASES = [
    # OpenHands' BashSession refusing the input itself (not a program's `ERROR: Cannot ...`)
    (
        "ERROR: Cannot execute multiple commands at once.\nPlease run each command separately OR "
        "chain them into a single command via && or ;\nProvided commands:\n(1) make\n(2) make test"
        + OPENHANDS_TRAILER,
        "PARAM_INVALID_VALUE",
    ),
    ("ERROR: No previous running command to interact with.", "PARAM_INVALID_VALUE"),
    ("ERROR: No active process to send keys to.", "PARAM_INVALID_VALUE"),
    # OpenHands' sandbox, with its ConversationMemory trailer peeled
    (
        "You're not allowed to access this path: /etc/shadow. You can only access paths inside "
        "the workspace." + OPENHANDS_TRAILER,
        "PERMISSION_DENIED",
    ),
    ("ERROR_BINARY_FILE" + OPENHANDS_TRAILER, "PARAM_INVALID_VALUE"),
    # agno's function-argument errors and CodingTools
    (
        "Error while parsing function arguments: bad input\n\n Please fix and retry.",
        "INVALID_JSON_ARGUMENTS",
    ),
    (
        "Function arguments are not a valid JSON object.\n\n Please fix and retry.",
        "INVALID_JSON_ARGUMENTS",
    ),
    ("Error: The requested tool does not exist or is not available.", "TOOL_NOT_FOUND"),
    ("Error: Binary file detected: dist/app.wasm", "PARAM_INVALID_VALUE"),
    # crush's LSP tools and its question tool's cap
    ("No definition found for symbol 'Serve'", "PARAM_INVALID_VALUE"),
    ("No references found for symbol 'Serve'", "PARAM_INVALID_VALUE"),
    ("exceeds maximum of 4 options per question (got 9)", "PARAM_INVALID_VALUE"),
    # LM Studio's refused call, sent as a JSON string, on one line or two
    (
        json.dumps('Failed to parse arguments for tool "f": params requires property "q"'),
        "PARAM_MISSING",
    ),
    (
        json.dumps('Failed to parse arguments for tool "f":\nparams.n is not of a type(s) integer'),
        "PARAM_TYPE_MISMATCH",
    ),
    (
        'Failed to parse arguments for tool "f": params.mode is not one of enum values: a,b',
        "PARAM_INVALID_VALUE",
    ),
    # botocore's ClientError codes, IAM's refusal
    (
        "An error occurred (SlowDown) when calling the PutObject operation (reached max retries: "
        "4): Please reduce your request rate.",
        "RATE_LIMITED",
    ),
    (
        "An error occurred (UnrecognizedClientException) when calling the ListTables operation: "
        "The security token included in the request is invalid.",
        "PERMISSION_DENIED",
    ),
    (
        "User: arn:aws:iam::123456789012:user/ci is not authorized to perform: "
        "dynamodb:PutItem on resource: table/orders",
        "PERMISSION_DENIED",
    ),
    # httpx, the Vercel AI SDK, dash, SWE-agent, the compressors
    ("Error executing tool get_page: All connection attempts failed", "NETWORK_ERROR"),
    ("Tool call execution denied.", "PERMISSION_DENIED"),
    ("dash: 1: cd: can't cd to /srv/app", "FILE_NOT_FOUND"),
    ("sh: 1: cd: can't cd to build", "FILE_NOT_FOUND"),
    ("No file open. Use the open command first.", "FILE_NOT_FOUND"),
    ("OBSERVATION:\nError 44 : Unrecognized header : file cannot be decoded", "COMMAND_FAILED"),
    ("OBSERVATION:\nout.zst : Read error (39) : premature end", "COMMAND_FAILED"),
    # crewAI's ReAct parser feedback (agents/constants.py), its two siblings of blind10's row
    (
        "I did it wrong. Invalid Format: I missed the 'Action:' after 'Thought:'. I will do "
        "right next, and don't use a tool I have already used.\n",
        "INVALID_TOOL_PROTOCOL",
    ),
    (
        "I did it wrong. Tried to both perform Action and give a Final Answer at the same time, "
        "I must do one or the other",
        "INVALID_TOOL_PROTOCOL",
    ),
    # slack_sdk's SlackApiError under CAMEL's toolkit: Slack's own codes in the body
    (
        "Tool execution failed: Error executing tool 'read_channel': The request to the Slack API "
        "failed. (url: https://slack.com/api/conversations.history)\nThe server responded with: "
        "{'ok': False, 'error': 'missing_scope', 'needed': 'channels:history'}",
        "PERMISSION_DENIED",
    ),
    # Gemini CLI's exit_plan_mode, CAMEL's FileToolkit, Python's strtobool under crewAI's tool
    ("Plan rejected. No feedback provided.", "PERMISSION_DENIED"),
    ("Plan rejected. User feedback: keep the old schema", "PERMISSION_DENIED"),
    ("Error: cell_id must refer to an existing cell for move.", "PARAM_INVALID_VALUE"),
    (
        "An error occurred while writing to the file: invalid truth value 'yes please'",
        "PARAM_INVALID_VALUE",
    ),
]

#: Texts in the families' words that belong elsewhere.
NEIGHBOURS = [
    # a size over a limit is the context's, not a count over a tool's cap
    ("prompt exceeds maximum of 8192 tokens per request", "CONTEXT_OVERFLOW"),
    # a program's own fatal `ERROR: Cannot` line stays the command's failure
    ("ERROR: Cannot uninstall requirement six, not installed", "COMMAND_FAILED"),
    # Slack's throttling code stays the rate limit's, not the refusal's
    (
        "The request to the Slack API failed. (url: https://slack.com/api/chat.postMessage)\n"
        "The server responded with: {'ok': False, 'error': 'ratelimited'}",
        "RATE_LIMITED",
    ),
    # a JSON string that says nothing a family knows stays unclassified
    (json.dumps("all done"), "UNCLASSIFIED"),
]


@pytest.mark.parametrize(("text", "category"), CASES + NEIGHBOURS)
def test_a_batch48_family_reads_its_text_as_its_category(text: str, category: str) -> None:
    assert classify_error(text).category == category
