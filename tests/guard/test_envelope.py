"""Envelopes: what the wrappers around an error say is read before any wording."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from toolmend.guard import Interceptor, classify_error, classify_result
from toolmend.guard.envelope import unwrap

ZOD_MISSING = (
    "MCP error -32602: Input validation error: Invalid arguments for tool read_text_file: "
    + json.dumps(
        [
            {
                "code": "invalid_type",
                "expected": "string",
                "received": "undefined",
                "path": ["path"],
                "message": "Required",
            }
        ],
        indent=2,
    )
)
ROO_UNKNOWN_MCP_TOOL = json.dumps(
    {
        "status": "error",
        "type": "unknown_tool",
        "message": "Tool does not exist on server",
        "server": "github",
        "tool": "search_issue",
        "available_tools": ["search_issues", "create_issue"],
    }
)


def test_a_zod_issue_list_names_the_field_and_the_tool() -> None:
    got = classify_error({"content": [{"type": "text", "text": ZOD_MISSING}], "isError": True})
    assert (got.category, got.param, got.failed_tool) == ("PARAM_MISSING", "path", "read_text_file")


def test_pydantic_text_errors_name_each_field_with_its_kind() -> None:
    text = (
        "1 validation error for get_weather_args\ndays\n  Input should be a valid integer, "
        "unable to parse string as an integer [type=int_parsing, input_value='two', input_type=str]"
    )
    got = classify_error(text)
    assert (got.category, got.param) == ("PARAM_TYPE_MISMATCH", "days")


def test_a_validation_list_wins_over_wording_inside_it() -> None:
    issue = {
        "code": "invalid_type",
        "received": "undefined",
        "path": ["timeout"],
        "message": "timed out",
    }
    got = classify_error(f"Invalid input for tool bash: {json.dumps([issue])}")
    assert (got.category, got.param, got.failed_tool) == ("PARAM_MISSING", "timeout", "bash")


def test_a_machine_error_type_in_a_json_body_decides() -> None:
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    assert classify_error(json.dumps(body)).category == "RATE_LIMITED"
    body = {"error": {"message": "too many", "type": "exceed_context_size_error", "n_ctx": 8}}
    assert classify_error(json.dumps(body)).category == "CONTEXT_OVERFLOW"


def test_an_unknown_tool_on_a_named_server_is_a_missing_mcp_tool_with_its_listed_tools() -> None:
    got = classify_error(ROO_UNKNOWN_MCP_TOOL)
    assert got.category == "MCP_TOOL_MISSING"
    assert got.requested_tool == "search_issue"
    assert got.available_tools == ("search_issues", "create_issue")
    text = Interceptor().on_error({"name": "use_mcp_tool"}, ROO_UNKNOWN_MCP_TOOL).render()
    assert "search_issues, create_issue" in text and "`search_issue`" in text


def test_tags_and_prefixes_are_peeled_to_the_message_inside() -> None:
    inner = "File has not been read yet. Read it first before writing to it."
    assert classify_error(f"<tool_use_error>{inner}</tool_use_error>").variant == "stale_read"
    wrapped = f"The tool execution failed with the following error:\n<error>\n{inner}\n</error>"
    assert classify_error(wrapped).variant == "stale_read"
    env = unwrap("Error executing tool get_forecast: [Errno 2] No such file or directory: 'x'")
    assert env.tool == "get_forecast"


def test_a_status_or_exit_code_alone_still_classifies() -> None:
    assert classify_error('{"error": {"code": 502, "message": "upstream went away"}}').category == (
        "NETWORK_ERROR"
    )
    assert classify_error("<returncode>2</returncode>\n<output>\nboom\n</output>").category == (
        "COMMAND_FAILED"
    )
    assert classify_error("<returncode>0</returncode>\n<output>\nboom\n</output>").category == (
        "UNCLASSIFIED"
    )


def test_the_tool_an_error_names_goes_into_the_guidance() -> None:
    text = Interceptor().on_error({}, ZOD_MISSING).render()
    assert "`read_text_file`" in text and "`path`" in text


def test_names_from_an_envelope_that_are_not_identifiers_are_dropped() -> None:
    body = {"status": "error", "type": "unknown_tool", "tool": "x; rm -rf /", "server": "s"}
    got = classify_error(json.dumps(body))
    assert got.category == "MCP_TOOL_MISSING" and got.requested_tool is None


def test_hostile_nesting_and_huge_logs_are_bounded() -> None:
    deep: object = "Error: ENOENT: no such file or directory"
    for _ in range(5_000):
        deep = {"error": deep}
    assert classify_error(deep).category in ("FILE_NOT_FOUND", "UNCLASSIFIED")
    assert classify_error("[" * 100_000).category == "UNCLASSIFIED"
    assert not classify_result("[" * 100_000, tool="query").failed
    assert classify_error({"text": "Code execution failed at line " * 100_000}).known is False
    big = "x" * 2_000_000 + "\nPermissionError: [Errno 13] Permission denied"
    assert classify_error(big).category == "PERMISSION_DENIED"


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.text(max_size=40),
        lambda c: st.lists(c) | st.dictionaries(st.text(max_size=8), c),
        max_leaves=30,
    )
)
def test_any_json_value_or_text_classifies_without_raising(value: object) -> None:
    got = classify_error(value)
    assert got.category is not None
    assert unwrap(json.dumps(value)).texts() is not None


def test_an_error_type_inside_an_anthropic_tool_result_is_read() -> None:
    body = {"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}}
    block = {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": json.dumps(body),
        "is_error": True,
    }
    assert classify_error(block).category == "RATE_LIMITED"


# The MCP TypeScript SDK (1.32.2) flattens zod issues into "<message> at <field>"; captured here
# from a McpServer over stdio.
TS_SDK_REQUIRED = "MCP error -32602: Input validation error: Invalid arguments for tool read_note: Required at path"
TS_SDK_TYPE = (
    "MCP error -32602: Input validation error: Invalid arguments for tool count_lines: "
    "Expected number, received string at limit"
)
# jsonschema's ValidationError as str(), captured here: the failed keyword and the field.
JSONSCHEMA_MINIMUM = (
    "0 is less than the minimum of 1\n\n"
    "Failed validating 'minimum' in schema['properties']['limit']:\n"
    "    {'type': 'integer', 'minimum': 1}\n\n"
    "On instance['limit']:\n    0"
)
JSONSCHEMA_EXTRA = (
    "Additional properties are not allowed ('recursive' was unexpected)\n\n"
    "Failed validating 'additionalProperties' in schema:\n    {'type': 'object'}\n\n"
    "On instance:\n    {'path': 'a', 'recursive': True}"
)


def test_the_typescript_sdks_flattened_zod_issues_name_the_field_and_what_was_wrong() -> None:
    missing = classify_error(TS_SDK_REQUIRED)
    mistyped = classify_error(TS_SDK_TYPE)
    assert (missing.category.name, missing.param) == ("PARAM_MISSING", "path")
    assert (mistyped.category.name, mistyped.param) == ("PARAM_TYPE_MISMATCH", "limit")


def test_a_jsonschema_error_is_read_by_the_keyword_that_failed() -> None:
    bound = classify_error(JSONSCHEMA_MINIMUM)
    assert (bound.category.name, bound.param) == ("PARAM_INVALID_VALUE", "limit")
    # "not allowed" here is the schema's word for an unknown key, not a permission refusal
    assert classify_error(JSONSCHEMA_EXTRA).category.name == "PARAM_INVALID_VALUE"


def test_a_status_that_names_a_refusal_wins_over_a_wording_that_only_says_it_failed() -> None:
    # captured here from urllib against a loopback http.server answering 403 and 401
    for text in (
        "urllib.error.HTTPError: HTTP Error 403: Forbidden",
        "urllib.error.HTTPError: HTTP Error 401: Unauthorized",
    ):
        assert classify_error(text).category.name == "PERMISSION_DENIED"
    assert classify_error("urllib.error.HTTPError: HTTP Error 404: Not Found").category.name == (
        "NETWORK_ERROR"
    )


def test_exit_code_124_is_gnu_timeouts_and_reads_as_a_timeout() -> None:
    text = "Error: Exit code 124\nmake: *** [Makefile:3: test] Terminated"
    assert classify_error(text).category.name == "TIMEOUT"


def test_httpxs_status_error_carries_its_status() -> None:
    text = (
        "httpx.HTTPStatusError: Client error '429 Too Many Requests' for url "
        "'http://127.0.0.1:8000/v1/chat/completions'"
    )
    assert unwrap(text).status == 429


def test_a_status_given_as_a_name_is_kept_as_a_machine_code() -> None:
    env = unwrap(
        {"error": {"code": 504, "message": "Deadline expired", "status": "DEADLINE_EXCEEDED"}}
    )
    assert "DEADLINE_EXCEEDED" in env.codes


def test_vs_codes_tool_error_envelope_is_peeled_to_the_thrown_message() -> None:
    # Copilot Chat's `toolCallErrorToResult`: "ERROR while calling tool: <message>" plus a closing
    # line that carries no signal; the message inside decides
    wrapped = (
        "ERROR while calling tool: Invalid input path: src/app.ts. Be sure to use an absolute "
        "path.\nPlease check your input and try again."
    )
    assert (
        unwrap(wrapped).texts()[0]
        == "Invalid input path: src/app.ts. Be sure to use an absolute path."
    )
    assert classify_error(wrapped).category == "PARAM_INVALID_VALUE"
    missing = (
        "ERROR while calling tool: No extension ID provided\nPlease check your input and try again."
    )
    assert classify_error(missing).category == "PARAM_MISSING"


def test_an_operation_named_before_its_failure_leaves_the_cause_to_decide() -> None:
    cause = "Could not find matching text to replace. Try making your search string more specific."
    assert classify_error(f"String replacement failed: {cause}").category == "DIFF_MATCH_FAILED"
    # with no cause of a known kind, the outer statement is still a plain failure
    got = classify_error("Deployment failed: see the build log")
    assert got.category == "COMMAND_FAILED" and got.plain


def test_an_unknown_zod_key_is_named_as_the_field() -> None:
    issue = {"code": "unrecognized_keys", "keys": ["assignee"], "path": [], "message": "x"}
    text = (
        'Invalid input for tool createTicket: Type validation failed: Value: {"assignee":"sam"}.'
        "\nError message: " + json.dumps([issue])
    )
    got = classify_error(text)
    assert (got.category, got.param, got.failed_tool) == (
        "PARAM_INVALID_VALUE",
        "assignee",
        "createTicket",
    )


def test_a_bulleted_validation_list_names_the_field_its_kind_and_the_tool() -> None:
    # Mastra's validateToolInput: a heading naming the tool, then "- path: message" per issue
    text = (
        "Tool input validation failed for search-docs. Please fix the following errors and try "
        "again:\n- topK: Invalid input: expected number, received string\n\nProvided arguments: "
        '{\n  "query": "retries",\n  "topK": "five"\n}'
    )
    got = classify_error(json.dumps({"error": True, "message": text}))
    assert (got.category, got.param, got.failed_tool) == (
        "PARAM_TYPE_MISMATCH",
        "topK",
        "search-docs",
    )
    missing = text.replace(
        "expected number, received string", "expected number, received undefined"
    )
    assert classify_error(missing).category == "PARAM_MISSING"
    # the same bullets without a validation heading are prose, not a validation list
    assert unwrap("Notes:\n- topK: expected number, received string").issues == []


def test_a_tools_own_output_refused_by_its_schema_is_the_tools_failure() -> None:
    text = (
        "Tool output validation failed for weather-tool. The tool returned invalid output:\n"
        "- temperature: Invalid input: expected number, received string"
    )
    got = classify_error(text)
    assert (got.category, got.failed_tool) == ("COMMAND_FAILED", "weather-tool")
