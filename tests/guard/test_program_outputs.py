"""Program outputs inside agents' command results: the variants batches 35 and 36 needed.

Every text was captured here by running the program (loopback only, made-up files); the rows
they come from are in `data/command_errors.json`.
"""

from __future__ import annotations

import pytest

from toolmend.guard import Interceptor, classify_error
from toolmend.guard.patterns import Category

PIP_OFFLINE = (
    "Looking in indexes: http://127.0.0.1:9/simple\nWARNING: Retrying (Retry(total=0, connect=None,"
    " read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip"
    "._vendor.urllib3.connection.HTTPConnection object at 0x7f8e10ad7390>: Failed to establish a "
    "new connection: [Errno 111] Connection refused')': /simple/left-pad-py/\nERROR: Could not find"
    " a version that satisfies the requirement left-pad-py (from versions: none)\nERROR: No matching"
    " distribution found for left-pad-py"
)
MVN_OFFLINE = (
    "The following artifacts could not be resolved: org.apache.maven:maven-project:jar:2.0.6, o"
    "rg.apache.maven:maven-core:jar:2.0.6, org.apache.maven:maven-settings:jar:2.0.6, org.apach"
    "e.maven:maven-monitor:jar:2.0.6, org.codehaus.plexus:plexus-container-default:jar:1.0-alph"
    "a-9-stable-1: Cannot access central (https://repo.maven.apache.org/maven2) in offline mode"
    " and the artifact org.apache.maven:maven-project:jar:2.0.6 has not been downloaded from it"
    " before. -> [Help 1]"
)
NPM_OFFLINE = (
    "npm error code ENOTCACHED\nnpm error request to https://registry.npmjs.org/left-pad failed: "
    "cache mode is 'only-if-cached' but no cached response is available."
)


@pytest.mark.parametrize("text", [PIP_OFFLINE, NPM_OFFLINE])
def test_a_package_index_out_of_reach_is_not_a_missing_package(text: str) -> None:
    got = classify_error(f"Exit code: 1\nWall time: 2.1 seconds\nOutput:\n{text}")
    assert (got.category, got.variant) == (Category.NETWORK_ERROR, "package_index_unreachable")


def test_an_offline_mode_the_command_chose_is_its_own_failure() -> None:
    # Maven's `-o`: the same message is COMMAND_FAILED in the corpus (`mvn/b25/005`)
    got = classify_error(MVN_OFFLINE)
    assert (got.category, got.variant) != (Category.NETWORK_ERROR, "package_index_unreachable")
    assert got.category is Category.COMMAND_FAILED


def test_a_servers_own_refusal_after_connecting_is_not_a_service_down() -> None:
    text = (
        'psql: error: connection to server on socket "/tmp/h7/pgsock/.s.PGSQL.5432" failed: '
        'FATAL:  password authentication failed for user "readonly"'
    )
    assert classify_error(text).category is Category.PERMISSION_DENIED


def test_the_guidance_for_an_unreachable_index_says_not_to_repeat_the_install() -> None:
    text = Interceptor().on_error({"name": "shell"}, PIP_OFFLINE).render()
    assert "package index" in text and "Do not repeat the install" in text


@pytest.mark.parametrize(
    "text",
    [
        "gzip: stdin: not in gzip format\ntar: Child returned status 1\ntar: Error is not "
        "recoverable: exiting now",
        "Archive:  bundle.zip\n  End-of-central-directory signature not found.  Either this file "
        "is not\n  a zipfile, or it constitutes one disk of a multi-part archive.\nunzip:  cannot "
        "find zipfile directory in one of bundle.zip or\n        bundle.zip.zip, and cannot find "
        "bundle.zip.ZIP, period.",
        "xz: a.txt.xz: File format not recognized",
        "bzip2: dump.sql.bz2 is not a bzip2 file.",
        'Traceback (most recent call last):\n  File "z.py", line 2, in <module>\nzipfile.'
        "BadZipFile: File is not a zip file",
    ],
)
def test_a_file_in_another_format_than_its_name_says_is_in_the_wrong_format(text: str) -> None:
    got = classify_error(text)
    assert (got.category, got.variant) == (Category.COMMAND_FAILED, "wrong_format")


@pytest.mark.parametrize(
    "text",
    [
        'psql: error: connection to server on socket "/tmp/.s.PGSQL.5439" failed: No such file or '
        "directory\n\tIs the server running locally and accepting connections on that socket?",
        "Could not connect to Redis at 127.0.0.1:6392: Connection refused",
    ],
)
def test_a_local_service_that_is_not_listening_is_not_a_missing_file(text: str) -> None:
    got = classify_error(f"Error: Exit code 2\n{text}")
    assert (got.category, got.variant) == (Category.NETWORK_ERROR, "service_not_running")


@pytest.mark.parametrize(
    "text",
    [
        "Preparing worktree (new branch 'wt')\nfatal: 'wt' already exists",
        "gzip: a.txt.gz already exists;\tnot overwritten",
    ],
)
def test_a_path_a_program_will_not_create_twice_already_exists(text: str) -> None:
    assert classify_error(text).category is Category.FILE_EXISTS


def test_a_programs_own_named_thing_that_exists_stays_its_failed_command() -> None:
    assert (
        classify_error("error: remote origin already exists.").category is Category.COMMAND_FAILED
    )


def test_a_yaml_parsers_not_allowed_in_this_context_is_no_policy() -> None:
    text = (
        "error: error parsing deploy.yaml: error converting YAML to JSON: yaml: line 5: mapping "
        "values are not allowed in this context"
    )
    assert classify_error(text).category is Category.COMMAND_FAILED


def test_values_inside_a_tap_failure_report_are_the_programs_not_the_calls() -> None:
    text = (
        "TAP version 13\n# Subtest: parses dates\nnot ok 1 - parses dates\n  ---\n  error: "
        "'Invalid time value'\n  code: 'ERR_TEST_FAILURE'\n  name: 'RangeError'"
    )
    assert classify_error(text).category is Category.COMMAND_FAILED


@pytest.mark.parametrize(
    "text",
    [
        "m.py:1:1: F401 'os' imported but unused\nm.py:6:16: F821 undefined name 'undefined_name'",
        "a.sh:3:1: warning: Use 'cd ... || exit' or 'cd ... || return' in case cd fails. [SC2164]",
        "patch: **** Only garbage was found in the patch input.",
        "awk: report.awk: line 2: missing } near END",
        "\n1 deselected in 4.86s\n",
    ],
)
def test_a_programs_own_report_of_failure_without_a_status_is_a_failed_command(text: str) -> None:
    assert classify_error(text).category is Category.COMMAND_FAILED
