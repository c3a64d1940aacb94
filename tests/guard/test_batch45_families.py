"""Batch 45's families (guard23): the failures the eighth and ninth blind splits showed, read after
`batch45_errors.json` was first scored. Each sibling is another program's (or another watcher's)
wording of the same failure, most captured on this machine (gdb, the shell, glibc, the
sanitizers, valgrind, bc, binutils, tmux, Python's and Node's runtimes); each neighbour is a text
the family must leave to its own category; each success is a passing output in the same words."""

from __future__ import annotations

import pytest

from toolmend.guard import Interceptor, classify_error, classify_result
from toolmend.guard.exit_status import killed_by_timeout

#: A program that died instead of exiting with an error, as whatever watched it says it.
CRASHES = [
    # gdb 13 in batch mode (exit 0): the debugged program's signal, a libc frame whose source
    # file is not here
    "parsing\n\nProgram received signal SIGSEGV, Segmentation fault.\n__strlen_avx2 () at "
    "../sysdeps/x86_64/multiarch/strlen-avx2.S:76\n76\t../sysdeps/x86_64/multiarch/"
    "strlen-avx2.S: No such file or directory.",
    "Program terminated with signal SIGABRT, Aborted.\n#0  0x00007f3a in raise () from libc.so.6",
    # lldb's stop reason
    "* thread #1, name = 'parse', stop reason = signal SIGSEGV: invalid address (fault address: "
    "0x0)",
    # the shell's job reports (two spaces after "line 1:" as bash prints them)
    "ratio\nbash: line 1:  6177 Floating point exception./ratio",
    "Segmentation fault (core dumped)",
    # glibc's aborts and a failed assert()
    "free(): double free detected in tcache 2\nbash: line 1:  6150 Aborted                 ./pool",
    "*** stack smashing detected ***: terminated",
    "ab: ab.c:2: main: Assertion `rows > 0' failed.",
    # the sanitizers
    "==4460==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000020",
    "sum.c:3:42: runtime error: signed integer overflow: 2147483647 + 1 cannot be represented "
    "in type 'int'\n-2147483648",
    # valgrind's memcheck, with and without its summary
    "==4382== Invalid read of size 4\n==4382==    at 0x109193: main (table.c:3)",
    "==24585== Invalid free() / delete / delete[] / realloc()",
    "==4135== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)",
    # memcheck -q --leak-check=full prints only the leak record (captured here)
    "==21732== 40 bytes in 1 blocks are definitely lost in loss record 1 of 1\n==21732==    at "
    "0x48417B4: malloc (in /usr/libexec/valgrind/vgpreload_memcheck-amd64-linux.so)",
    # a parent's report of a child that crashed: cargo, Python's subprocess, Go's os/exec
    "error: test failed, to rerun pass `--lib`\n\nCaused by:\n  process didn't exit "
    "successfully: `/w/target/debug/deps/walk-1a2b` (signal: 11, SIGSEGV: invalid memory "
    "reference)",
    "subprocess.CalledProcessError: Command '['./pool']' died with <Signals.SIGABRT: 6>.",
    "run ./parse: signal: segmentation fault (core dumped)",
    # a status of 128 + a crash signal, with nothing else said
    "Error: Exit code 139",
    '{"output":"","return_code":139,"stderr":"/bin/bash: line 1:   415 '
    'Segmentation fault      ./app\\n"}',
    # runtimes out of memory
    'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\nMemoryError',
    "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    '{"error":"llama-server reported out-of-memory during startup: cudaMalloc failed: out of '
    'memory"}',
]


@pytest.mark.parametrize("text", CRASHES, ids=[t[:40] for t in CRASHES])
def test_a_program_that_crashed_is_the_crashed_variant_of_a_failed_command(text: str) -> None:
    got = classify_error(text)
    assert (got.category, got.variant) == ("COMMAND_FAILED", "crashed")


def test_a_clean_memcheck_summary_is_no_crash() -> None:
    text = (
        "==4453== HEAP SUMMARY:\n==4453==     in use at exit: 0 bytes in 0 blocks\n"
        "==4453== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)"
    )
    assert classify_error(text).variant != "crashed"


def test_the_crash_guidance_says_what_crashed_and_not_to_rerun_it_unchanged() -> None:
    guidance = Interceptor().on_error({"name": "bash"}, CRASHES[0])
    text = guidance.render()
    assert guidance.pattern_id == "EI/COMMAND_FAILED/005"
    assert "crashed" in text and "NEXT:" in text


@pytest.mark.parametrize(
    "text",
    [
        # gdb's refusals of a command for the state it is in (captured here)
        'No symbol "total" in current context.',
        "The program is not being run.",
        "No stack.",
        "No frame selected.",
        "0x0:\tCannot access memory at address 0x0",
        # bc's parse and runtime errors, dc's empty stack
        "(standard_in) 1: illegal character: $\n(standard_in) 1: syntax error",
        "(standard_in) 2: syntax error",
        "Runtime error (func=(main), adr=7): Array a subscript out of bounds.",
        "Runtime error (func=(main), adr=12): Divide by zero",
        "dc: stack empty",
        # ImageMagick's error locus (a truncated PNG, a format it cannot decode)
        "identify-im6.q16: insufficient image data in file `broken.png' @ "
        "error/png.c/ReadPNGImage/4121.",
        # signatures that do not verify: gpg, openssl dgst -verify
        'gpg: BAD signature from "Release Bot <rel@example.test>" [ultimate]',
        "Verification failure",
        "gpgv: no valid OpenPGP data found.\ngpgv: the signature could not be verified.",
        # a program's refusal of a value of its own command line, by kind
        "xz: md5: Unsupported integrity check type",
        "tar: zip: Invalid archive format\nTry 'tar --help' or 'tar --usage' for more information.",
    ],
)
def test_a_program_s_own_failure_without_an_error_word_is_a_failed_command(text: str) -> None:
    assert classify_error(text).category == "COMMAND_FAILED"


@pytest.mark.parametrize(
    "text",
    [
        "readelf: Error: Not an ELF file - it has the wrong magic bytes at the start",
        "readelf: Error: readme.md: Failed to read file's magic number",
        "\tnot a dynamic executable",
    ],
)
def test_a_file_that_is_no_object_file_is_the_wrong_format(text: str) -> None:
    got = classify_error(text)
    assert (got.category, got.variant) == ("COMMAND_FAILED", "wrong_format")


def test_bc_s_unavailable_script_is_a_missing_file() -> None:
    assert classify_error("File totals.bc is unavailable.").category == "FILE_NOT_FOUND"


@pytest.mark.parametrize(
    "text",
    [
        "error connecting to /tmp/tmux-0/nobody (No such file or directory)",
        "no server running on /tmp/tmux-1000/default",
    ],
)
def test_a_multiplexer_with_no_server_on_its_socket_is_a_service_not_running(text: str) -> None:
    got = classify_error(text)
    assert (got.category, got.variant) == ("NETWORK_ERROR", "service_not_running")


@pytest.mark.parametrize(
    "text",
    [
        # Go's resolver and dialer (terraform init with no network, an Ollama pull)
        "hashicorp/random: could not connect to registry.terraform.io: failed to request discovery "
        'document: Get "https://registry.terraform.io/.well-known/terraform.json": dial tcp: lookup '
        "registry.terraform.io on 10.255.255.53:53: dial udp 10.255.255.53:53: connect: network is "
        "unreachable",
        '{"error":"max retries exceeded: Get \\"https://registry.ollama.ai/v2/library/qwen3/blobs/'
        'sha256:3e4c\\": dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving"}',
        # a client that gave up reconnecting
        "Maximum reconnection attempts (2) exceeded.",
    ],
)
def test_a_client_that_could_not_dial_or_gave_up_reconnecting_is_a_network_error(text: str) -> None:
    assert classify_error(text).category == "NETWORK_ERROR"


@pytest.mark.parametrize(
    "text",
    [
        '{"error":"server busy, please try again.  maximum pending requests exceeded"}',
        "Too many pending requests: 512",
        "the request queue is full, try again later",
    ],
)
def test_a_server_too_busy_for_the_request_is_a_rate_limit(text: str) -> None:
    assert classify_error(text).category == "RATE_LIMITED"


def test_a_source_line_number_429_is_no_rate_limit_and_an_http_429_still_is() -> None:
    openssl = (
        "4017E9637C7F0000:error:02000068:rsa routines:ossl_rsa_verify:bad signature:"
        "../crypto/rsa/rsa_sign.c:429:\nVerification failure"
    )
    assert classify_error(openssl).category == "COMMAND_FAILED"
    assert classify_error("HTTP 429 Too Many Requests").category == "RATE_LIMITED"
    assert classify_error("upstream answered 429, slow down").category == "RATE_LIMITED"


@pytest.mark.parametrize(
    "text",
    [
        # smtplib, ftplib and imaplib against servers that refuse the login (captured here)
        "Error executing tool 'send_invoice' with error:\n SMTPAuthenticationError: (535, "
        "b'5.7.8 Username and Password not accepted')\n Please fix the error and try again.",
        "Error: error_perm('530 Login incorrect.')\n Please fix your mistakes.",
        "b'[AUTHENTICATIONFAILED] Invalid credentials (Failure)'",
        '{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}',
    ],
)
def test_a_login_the_server_refused_is_permission_denied(text: str) -> None:
    assert classify_error(text).category == "PERMISSION_DENIED"


@pytest.mark.parametrize(
    "text",
    [
        # the shell's report of SIGALRM (perl's and Python's alarm)
        "bash: line 1:  4946 Alarm clock             python3 -c 'import signal, time; "
        "signal.alarm(1); time.sleep(5)'",
        # a database's or a client's own timer, named
        'Error: Exit code 2\npsql: error: connection to server at "127.0.0.1", port 6543 failed: '
        "timeout expired",
        "Error: ToolException('statement timeout: canceling statement due to statement timeout "
        "after 30000 ms')\n Please fix your mistakes.",
        "ERROR 1205 (HY000): Lock wait timeout exceeded; try restarting transaction\nExit code: 1",
    ],
)
def test_a_timer_that_ran_out_in_other_words_is_a_timeout(text: str) -> None:
    assert classify_error(text).category == "TIMEOUT"


def test_ninja_stopped_by_timeout_s_signal_is_a_timeout_and_not_the_user_s_refusal() -> None:
    text = (
        "I ran this command:\n\ntimeout 3 cmake --build build\n\nAnd got this output:\n\n"
        "ninja: build stopped: interrupted by user.\n"
    )
    assert killed_by_timeout(text)
    assert classify_error(text).category == "TIMEOUT"
    # an agent's own report of the user's interruption is still the user's refusal
    assert classify_error("[Request interrupted by user]").category == "PERMISSION_DENIED"


def test_an_unknown_tool_in_a_program_s_output_is_that_program_s_failure() -> None:
    ninja = (
        "<returncode>1</returncode>\n<output>\nninja: fatal: unknown tool 'graphviz2'\n</output>"
    )
    assert classify_error(ninja).category == "COMMAND_FAILED"
    assert classify_error("Unknown tool: graphviz2").category == "TOOL_NOT_FOUND"


def test_an_image_over_a_display_limit_is_an_output_too_large() -> None:
    text = '{"error": "Image exceeds the 10485760 byte display limit: /home/dev/a.png"}'
    assert classify_error(text).category == "CONTEXT_OVERFLOW"


def test_gemini_cli_s_untrusted_context_is_peeled_to_the_program_s_output() -> None:
    text = (
        "<untrusted_context>\nOutput: Runtime error (func=(main), adr=6): Modulo by zero\n"
        "Process Group PGID: 51234\n</untrusted_context>"
    )
    assert classify_error(text).category == "COMMAND_FAILED"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        # ssh's warning about an identity file, then the refused connection (captured here)
        (
            "Warning: Identity file keys/ci_ed25519 not accessible: No such file or directory.\n"
            "ssh: connect to host 127.0.0.1 port 2201: Connection refused\nscp: Connection closed",
            "NETWORK_ERROR",
        ),
        # Node's deprecation warning, then a module that is not installed
        (
            "(node:5680) [DEP0005] DeprecationWarning: Buffer() is deprecated due to security and "
            "usability issues.\nnode:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\n"
            "Error: Cannot find module 'express'",
            "COMMAND_FAILED",
        ),
    ],
)
def test_a_warning_never_decides_over_the_error_after_it(text: str, category: str) -> None:
    assert classify_error(text).category == category


def test_a_warning_alone_is_still_read_and_a_retry_warning_is_the_failure() -> None:
    assert classify_error("warning: could not open directory 'gone/': No such file or directory")
    pip = (
        "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) "
        "after connection broken by 'NewConnectionError('<HTTPConnection object>: Failed to "
        "establish a new connection: [Errno 111] Connection refused')': /simple/httpx/\n"
        "ERROR: Could not find a version that satisfies the requirement httpx==0.27.0 (from "
        "versions: none)\nERROR: No matching distribution found for httpx==0.27.0"
    )
    assert classify_error(pip).category == "NETWORK_ERROR"


@pytest.mark.parametrize(
    "text",
    [
        # gdb exits 0 after the debugged program's signal (mini-swe-agent's observation)
        "<returncode>0</returncode>\n<output>\nratio\n\nProgram received signal SIGFPE, "
        "Arithmetic exception.\n0x0000555555555185 in main (c=1, v=0x7fffffffebc8) at ratio.c:2\n"
        "</output>",
        # memcheck's report, exit 0, in Gemini CLI's llmContent (no Exit Code line for 0)
        "<untrusted_context>\nOutput: ==4382== Invalid read of size 4\n==4382==    at 0x109193: "
        "main (table.c:3)\nsum 0\nProcess Group PGID: 51234\n</untrusted_context>",
        # UndefinedBehaviorSanitizer goes on and exits 0 (Qwen Code's fields)
        "Command: ./sum\nDirectory: (root)\nOutput: sum.c:3:42: runtime error: signed integer "
        "overflow: 2147483647 + 1 cannot be represented in type 'int'\n-2147483648\nError: (none)\n"
        "Exit Code: 0\nSignal: (none)\nProcess Group PGID: 51234",
    ],
)
def test_a_crash_report_is_a_failed_result_whatever_status_the_harness_states(text: str) -> None:
    assert classify_result(text, tool="bash").failed


@pytest.mark.parametrize(
    "text",
    [
        "<returncode>0</returncode>\n<output>\n==4453== All heap blocks were freed -- no leaks are "
        "possible\n==4453== ERROR SUMMARY: 0 errors from 0 contexts (suppressed: 0 from 0)\n"
        "</output>",
        # notes that quote a crash mid-line are content
        "<returncode>0</returncode>\n<output>\n- fixed: gdb showed 'Program received signal "
        "SIGSEGV' in parse()\n</output>",
    ],
)
def test_a_clean_memcheck_run_or_a_quoted_crash_is_a_successful_result(text: str) -> None:
    assert not classify_result(text, tool="bash").failed


def test_xargs_s_124_after_a_command_exited_255_is_no_timeout_and_timeout_s_124_still_is() -> None:
    xargs = "Error: Exit code 124\nchecking b\nxargs: sh: exited with status 255; aborting"
    assert classify_error(xargs).category == "COMMAND_FAILED"
    assert classify_error("Error: Exit code 124\nwaiting for the server").category == "TIMEOUT"
