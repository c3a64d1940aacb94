"""The `toolmend` command line: a thin shell over the library (no parsing of its own).

    toolmend parse [--protocol ID] [--tools FILE] [--chunk-size N] [FILE|-]
    toolmend parse --sample
    toolmend protocols
    toolmend serve [--config FILE] [--host H] [--port N] [--upstream URL] [--workers N]
    toolmend demo

Mistakes of the caller (unknown protocol, unreadable file, invalid tools file) print one line
on stderr and exit with status 2. Mistakes of the model are data in the printed JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from importlib import resources
from typing import Any, NoReturn

from toolmend.api import parse
from toolmend.core.engine import DEFAULT_MAX_FRAGMENT
from toolmend.model import ToolmendError, coerce_tools
from toolmend.protocols import get_protocol, protocols

USAGE_ERROR = 2
SAMPLE_TEXT = "hermes_weather.txt"
SAMPLE_TOOLS = "weather_tools.json"


class CliError(Exception):
    """A caller mistake worth one line on stderr."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolmend", description="Reliable LLM tool calling: parse, repair, guard."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = commands.add_parser(
        "parse",
        help="parse a model output into text, tool calls and diagnostics (prints JSON)",
        description="Parse a model output and print one JSON object: "
        '{"text", "tool_calls", "diagnostics"}.',
    )
    p.add_argument("file", nargs="?", default="-", help="model output to parse; - for stdin")
    p.add_argument(
        "--protocol", "-p", default="auto", help="protocol id, or auto to detect (default)"
    )
    p.add_argument("--tools", "-t", metavar="FILE", help="JSON file: a list of tool definitions")
    p.add_argument(
        "--chunk-size", type=_positive, metavar="N", help="feed the text N characters at a time"
    )
    p.add_argument(
        "--policy", choices=["strict", "lenient"], help="argument repairs (default: per protocol)"
    )
    p.add_argument(
        "--max-fragment",
        type=_positive,
        default=DEFAULT_MAX_FRAGMENT,
        metavar="N",
        help=f"largest call in characters before it is cut off (default {DEFAULT_MAX_FRAGMENT})",
    )
    p.add_argument(
        "--keep-failed-markup",
        action="store_true",
        help="show the markup of calls that failed as text instead of only a diagnostic",
    )
    p.add_argument("--id-prefix", help="deterministic call ids: PREFIX1, PREFIX2, ...")
    p.add_argument(
        "--sample",
        action="store_true",
        help="parse the bundled sample (a Hermes output and its tools)",
    )
    p.add_argument("--indent", type=int, default=2, help="JSON indent (0 for one line)")

    commands.add_parser("protocols", help="list the protocol ids")
    _add_server_commands(commands)
    return parser


def _add_server_commands(commands: Any) -> None:
    s = commands.add_parser(
        "serve",
        help="run the OpenAI-compatible proxy in front of a model server",
        description="Run the proxy. Flags override TOOLMEND_* environment variables, which "
        "override the config file. Needs the server extra: pip install 'toolmend[server]'.",
    )
    s.add_argument("--config", "-c", metavar="FILE", help="TOML configuration file")
    s.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, help="port to listen on (default 4000)")
    s.add_argument(
        "--upstream", metavar="URL", help="the model server (default http://127.0.0.1:11434/v1)"
    )
    s.add_argument("--workers", type=_positive, help="worker processes (default 1)")
    s.add_argument(
        "--insecure",
        action="store_true",
        default=None,
        help="allow a non-loopback --host without client keys",
    )
    s.add_argument("--log-file", metavar="FILE", help="request log file (default: stderr)")
    s.add_argument(
        "--log-content",
        action="store_true",
        default=None,
        help="put prompts and answers in the request log (off by default)",
    )
    commands.add_parser(
        "demo",
        help="show the proxy fixing real failure cases against a built-in scripted model",
        description="Start the proxy and a scripted model server on loopback, replay the "
        "bundled failure cases with the openai client, and exit 0 when all come out right.",
    )


def _run_server_command(args: argparse.Namespace) -> int:
    try:  # serve imports no metrics library before it has set up the workers' directory
        if args.command == "demo":
            from toolmend.server.demo.runner import run_demo
        else:
            from toolmend.server.config import Overrides
            from toolmend.server.serve import run_serve
    except ImportError as exc:
        raise CliError(
            f"{args.command} needs the server extra ({exc.name} is missing): "
            "pip install 'toolmend[server]'"
        ) from None
    if args.command == "demo":
        return run_demo()
    flags = Overrides(
        config=args.config,
        host=args.host,
        port=args.port,
        workers=args.workers,
        upstream=args.upstream,
        insecure=args.insecure,
        log_file=args.log_file,
        log_content=args.log_content,
    )
    return run_serve(flags)


def _read_text(path: str) -> str:
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"cannot read {path}: {exc}") from None


def _read_tools(path: str) -> list[Any]:
    text = _read_text(path)
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CliError(f"invalid tools file {path}: not JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("tools"), list):
        data = data["tools"]
    if not isinstance(data, list):
        raise CliError(f"invalid tools file {path}: expected a JSON list of tool definitions")
    try:
        coerce_tools(data)
    except ToolmendError as exc:
        raise CliError(f"invalid tools file {path}: {exc}") from None
    return data


def _sample(name: str) -> str:
    return resources.files("toolmend").joinpath("samples", name).read_text(encoding="utf-8")


def _run_parse(args: argparse.Namespace) -> int:
    get_protocol(args.protocol)  # fail on an unknown id before reading any input
    if args.sample:
        text = _sample(SAMPLE_TEXT)
        tools: list[Any] | None = json.loads(_sample(SAMPLE_TOOLS))
    else:
        tools = _read_tools(args.tools) if args.tools else None
        text = _read_text(args.file)
    result = parse(
        text,
        args.protocol,
        tools,
        chunk_size=args.chunk_size,
        policy=args.policy,
        max_fragment=args.max_fragment,
        keep_failed_markup=args.keep_failed_markup,
        id_prefix=args.id_prefix,
    )
    indent = args.indent if args.indent > 0 else None
    print(json.dumps(result.to_dict(), ensure_ascii=False, indent=indent))
    return 0


def _fail(message: str) -> NoReturn:
    print(f"toolmend: error: {message}", file=sys.stderr)
    raise SystemExit(USAGE_ERROR)


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    try:
        if args.command == "protocols":
            for pid in protocols():
                proto = get_protocol(pid)
                aliases = f" (alias: {', '.join(proto.aliases)})" if proto.aliases else ""
                print(f"{pid}{aliases}: {proto.summary}")
            return 0
        if args.command in ("serve", "demo"):
            return _run_server_command(args)
        return _run_parse(args)
    except (CliError, ToolmendError, ValueError) as exc:
        _fail(str(exc))
    except BrokenPipeError:
        # The reader went away (`toolmend parse ... | head`): not an error worth a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
