"""Batch 43's families (guard19): the causes programs state in their own words, read after
`batch43_errors.json` was first scored. Each sibling is another program's wording of the same
failure (most captured on this machine: pkg-config, apt, CMake's modules, Java's NIO), so that
the family, not the batch row, is what is tested; each neighbour is a text the family must leave
to its own category; each success is a passing output in the same words."""

from __future__ import annotations

import pytest

from toolmend.guard import classify_error, classify_result
from toolmend.guard.meanings import meaning_of

#: A package a build or a script needs, said by the tool that looked for it: the plain failure's
#: variant for a missing dependency, not a missing file (most of these say "file" or "not found").
MISSING_PACKAGES = [
    # pkg-config 1.8.1, captured here
    "Package libfrobnicate was not found in the pkg-config search path.\n"
    "Perhaps you should add the directory containing `libfrobnicate.pc'\n"
    "to the PKG_CONFIG_PATH environment variable\n"
    "Package 'libfrobnicate', required by 'virtual:world', not found",
    # apt-get install -s, captured here
    "Reading state information...\nE: Unable to locate package libfrobnicate-dev",
    # CMake 3.25's pkg_check_modules and a Find module that is not there, captured here
    "CMake Error at /usr/share/cmake-3.25/Modules/FindPkgConfig.cmake:607 (message):\n"
    "  A required package was not found",
    'CMake Error at CMakeLists.txt:3 (find_package):\n  No "FindOpenSSLX.cmake" found in '
    "CMAKE_MODULE_PATH.",
    'CMake Error at CMakeLists.txt:3 (find_package):\n  By not providing "FindZLIBX.cmake" in '
    "CMAKE_MODULE_PATH this project has\n  asked CMake to find a package configuration file "
    'provided by "ZLIBX", but\n  CMake did not find one.',
    # FindPackageHandleStandardArgs
    "CMake Error at /usr/share/cmake-3.25/Modules/FindPackageHandleStandardArgs.cmake:230 "
    "(message):\n  Could NOT find ZLIB (missing: ZLIB_LIBRARY ZLIB_INCLUDE_DIR)",
    # perl, a module; Tcl; Ruby, a gem by name; Lua; GHC; Go
    "Can't locate YAML/XS.pm in @INC (you may need to install the YAML::XS module) (@INC "
    "contains: /etc/perl /usr/share/perl5) at load.pl line 2.",
    'can\'t find package tls\n    while executing\n"package require tls"',
    "<internal:/usr/lib/ruby/3.1.0/rubygems/core_ext/kernel_require.rb>:85:in `require': "
    "cannot load such file -- nokogiri (LoadError)",
    "lua: app.lua:1: module 'cjson' not found:\n\tno field package.preload['cjson']",
    "Main.hs:3:1: error:\n    Could not find module ‘Data.Aeson’",
    "main.go:5:2: no required module provides package github.com/gorilla/mux; to add it:\n"
    "\tgo get github.com/gorilla/mux",
]


@pytest.mark.parametrize("text", MISSING_PACKAGES, ids=[t[:40] for t in MISSING_PACKAGES])
def test_a_package_its_finder_did_not_find_is_a_missing_dependency(text: str) -> None:
    got = classify_error(text)
    assert (got.category, got.variant) == ("COMMAND_FAILED", "missing_dependency")


@pytest.mark.parametrize(
    "text",
    [
        # perl: `require "lib/helpers.pl"` (captured here) and `require "./lib/helpers.pl"`
        "Can't locate lib/helpers.pl in @INC (@INC contains: /etc/perl /usr/share/perl5) at -e "
        "line 1.",
        "Can't locate ./lib/helpers.pl at -e line 1.",
        # Ruby's require_relative
        "/app/bin/seed.rb:1:in `require_relative': cannot load such file -- /app/lib/tasks/seed "
        "(LoadError)",
    ],
)
def test_a_file_a_loader_was_told_to_load_by_path_is_a_missing_file(text: str) -> None:
    assert classify_error(text).category == "FILE_NOT_FOUND"


@pytest.mark.parametrize(
    "text",
    [
        "gpg: keyserver receive failed: No keyserver available",
        "503 Service Unavailable\nNo server is available to handle this request.",
        "no healthy upstream",
        "kafka.errors.NoBrokersAvailable: NoBrokersAvailable",
        "NoNodeAvailableException[None of the configured nodes are available: [{#transport#-1}]]",
    ],
)
def test_a_client_with_no_server_to_send_to_is_a_network_error(text: str) -> None:
    assert classify_error(text).category == "NETWORK_ERROR"


#: Exceptions and error kinds that name the cause with nothing beside them but a path or a host
#: (the Java ones captured here with OpenJDK 17), inside a program's failure.
NAMED_CAUSES = [
    (
        'Exception in thread "main" java.nio.file.NoSuchFileException: conf/app.yaml\n'
        "\tat java.base/sun.nio.fs.UnixException.translateToIOException(UnixException.java:92)",
        "FILE_NOT_FOUND",
    ),
    (
        'Exception in thread "main" java.nio.file.FileAlreadyExistsException: b.txt\n'
        "\tat java.base/sun.nio.fs.UnixCopyFile.move(UnixCopyFile.java:449)",
        "FILE_EXISTS",
    ),
    (
        'Exception in thread "main" java.net.UnknownHostException: db.internal.invalid\n'
        "\tat java.base/sun.nio.ch.NioSocketImpl.connect(NioSocketImpl.java:572)",
        "NETWORK_ERROR",
    ),
    (
        "Unhandled exception. System.IO.DirectoryNotFoundException: Could not find a part of the "
        "path '/app/data/in.csv'.\n   at System.IO.FileSystem.Open(String path)",
        "FILE_NOT_FOUND",
    ),
    (
        "Unhandled exception. System.UnauthorizedAccessException: Access to the path "
        "'/etc/app.conf' is denied.\n   at Program.Main()",
        "PERMISSION_DENIED",
    ),
    (
        "thread 'main' panicked at src/main.rs:4:10:\ncalled `Result::unwrap()` on an `Err` "
        'value: Custom { kind: TimedOut, error: "deadline" }',
        "TIMEOUT",
    ),
    (
        'Exception in thread "main" java.util.concurrent.TimeoutException\n'
        "\tat java.base/java.util.concurrent.FutureTask.get(FutureTask.java:204)",
        "TIMEOUT",
    ),
]


@pytest.mark.parametrize(("text", "category"), NAMED_CAUSES, ids=[t[:50] for t, _ in NAMED_CAUSES])
def test_an_exception_class_that_names_the_cause_decides_a_programs_failure(
    text: str, category: str
) -> None:
    assert classify_error("Error: Exit code 1\n" + text).category == category


def test_a_failure_stated_without_an_error_colon_is_the_programs() -> None:
    # cmake, in aider's /run message (no exit status): an "X Error at FILE:LINE" diagnostic
    text = (
        "I ran this command:\n\ncmake -S . -B build\n\nAnd got this output:\n\n"
        'CMake Error at cmake/deps.cmake:14:\n  Unknown CMake command "fetch_deps".\n'
    )
    assert classify_error(text).category == "COMMAND_FAILED"
    assert meaning_of(["-- Configuring incomplete, errors occurred!"]) == "EI/COMMAND_FAILED/001"
    assert meaning_of(["Parse error at line 3, column 7"]) == "EI/COMMAND_FAILED/001"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # a perl method call on a package that was not loaded: the program's failure, no file
        (
            'Can\'t locate object method "new" via package "Foo::Bar" (perhaps you forgot to '
            'load "Foo::Bar"?) at app.pl line 3.',
            "COMMAND_FAILED",
        ),
        # Node's script path stays a missing file, its bare package a missing dependency
        ("Error: Cannot find module './routes/admin'", "FILE_NOT_FOUND"),
        # a directory that is not empty is no cause of the classes above
        (
            'Error: Exit code 1\nException in thread "main" java.nio.file.DirectoryNotEmptyException'
            ": d\n\tat java.base/sun.nio.fs.UnixFileSystemProvider.implDelete(UnixFileSystemProvid"
            "er.java:246)",
            "COMMAND_FAILED",
        ),
        # a compiler naming an exception class it was not told to throw (java/b25/004)
        (
            "Exc.java:1: error: unreported exception NoSuchFileException; must be caught or "
            "declared to be thrown\n1 error",
            "COMMAND_FAILED",
        ),
        # a missing input file named by a CMake command stays a missing file
        (
            "CMake Error at CMakeLists.txt:3 (include):\n  include could not find requested "
            "file:\n\n    cmake/Warnings.cmake",
            "FILE_NOT_FOUND",
        ),
    ],
)
def test_the_batch43_families_leave_neighbouring_wordings_to_their_own_categories(
    text: str, category: str
) -> None:
    assert classify_error(text).category == category


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        (
            '-- Found PkgConfig: /usr/bin/pkg-config (found version "1.8.1")\n'
            "-- Checking for module 'zlib'\n--   Found zlib, version 1.2.13\n-- Configuring done",
            "Bash",
        ),
        ("cluster health: 3 nodes available, 0 brokers unavailable", "Bash"),
        (
            "2026-12-01 10:02:11 WARN retry after FileAlreadyExistsException: out/report.csv\n"
            "report written",
            "read_file",
        ),
        (
            "<returncode>0</returncode>\n<output>\nparse errors: 0\nerrors occurred: none\n</output>",
            "bash",
        ),
    ],
)
def test_batch43_families_take_no_success_for_a_failure(text: str, tool: str) -> None:
    assert not classify_result(text, tool=tool).failed


#: Probed after batch 43's first families (program outputs captured here, in Claude Code's Bash
#: form): a cause other programs state the same way.
PROGRAM_CAUSES = [
    # lz4 1.9 and gzip: the overwrite prompt nobody answered
    (
        "a.txt.lz4 already exists; do you want to overwrite (y/N) ?     not overwritten",
        "FILE_EXISTS",
    ),
    (
        "gzip: a.gz already exists; do you wish to overwrite (y or n)?   not overwritten",
        "FILE_EXISTS",
    ),
    # git clone from a local path that is not there
    ("fatal: repository '/srv/repos/app.git' does not exist", "FILE_NOT_FOUND"),
    # an agent or bus that is not running: ssh-add, gpg, systemctl in a container
    ("Could not open a connection to your authentication agent.", "NETWORK_ERROR"),
    ("gpg-connect-agent: no gpg-agent running in this session", "NETWORK_ERROR"),
    (
        "System has not been booted with systemd as init system (PID 1). Can't operate.\n"
        "Failed to connect to bus: Host is down",
        "NETWORK_ERROR",
    ),
    ("Failed to connect to bus: No such file or directory", "NETWORK_ERROR"),
]


@pytest.mark.parametrize(
    ("text", "category"), PROGRAM_CAUSES, ids=[t[:40] for t, _ in PROGRAM_CAUSES]
)
def test_a_cause_a_program_states_is_read_in_its_own_words(text: str, category: str) -> None:
    assert classify_error("Error: Exit code 1\n" + text).category == category


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # a remote repository that is not there is no local path
        ("fatal: repository 'https://github.com/acme/nope.git/' not found", "COMMAND_FAILED"),
        # a name, not a path, that does not exist
        ("Error: workspace 'staging' does not exist", "COMMAND_FAILED"),
    ],
)
def test_a_quoted_name_or_url_that_does_not_exist_is_not_a_missing_file(
    text: str, category: str
) -> None:
    assert classify_error("Error: Exit code 1\n" + text).category == category


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        (
            "Agent pid 4242\nIdentity added: keys/deploy (deploy@ci)\nno agent running before",
            "Bash",
        ),
        ("existing archives kept: a.lz4 already exists, not overwritten by design", "read_file"),
    ],
)
def test_the_program_cause_families_take_no_success_for_a_failure(text: str, tool: str) -> None:
    assert not classify_result(text, tool=tool).failed
