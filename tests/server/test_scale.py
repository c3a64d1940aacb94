"""Load and scale: 200 concurrent streams, `toolmend serve --workers 2`, and `toolmend demo`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from toolmend.cli import main
from toolmend.server.demo.scripted import Answer
from toolmend.server.loopback import free_port

from .servers import ASK, TOOLS, ProxyHandle, ScriptedHandle

CONCURRENT_STREAMS = 200


def numbered_text(n: int) -> str:
    return " ".join(str(i) for i in range(n))


def test_200_concurrent_streams_arrive_whole_and_in_order(
    upstream: ScriptedHandle, proxy: ProxyHandle
) -> None:
    text = numbered_text(150)
    models = [upstream.script(Answer(f"{i}: {text}", chunk_size=4, pace_ms=1)) for i in range(8)]

    async def run() -> list[tuple[str, str]]:
        client = proxy.async_client()

        async def one(i: int) -> tuple[str, str]:
            model = models[i % len(models)]
            stream = await client.chat.completions.create(
                model=model, messages=ASK, tools=TOOLS, stream=True
            )
            pieces = [
                choice.delta.content or "" async for chunk in stream for choice in chunk.choices
            ]
            return f"{i % len(models)}: {text}", "".join(pieces)

        results = await asyncio.gather(*(one(i) for i in range(CONCURRENT_STREAMS)))
        await client.close()
        return results

    results = asyncio.run(run())
    assert len(results) == CONCURRENT_STREAMS
    for wanted, got in results:
        assert got == wanted
    records = proxy.log(at_least=CONCURRENT_STREAMS)
    assert len(records) == CONCURRENT_STREAMS
    assert {r["status"] for r in records} == {200} and not any(r["error"] for r in records)


def wait_for(url: str, seconds: float) -> None:
    """Poll until the server answers; a refused connection and a slow answer both mean "not yet".

    The slow answer matters on a loaded machine: a worker still importing can accept the
    connection and not answer within the poll's own timeout, which raises `TimeoutError` (an
    `OSError`, not a `URLError`).
    """
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("workers", [1, 2])
def test_serve_answers_and_counts_every_request_in_metrics_with_one_or_two_workers(
    upstream: ScriptedHandle, tmp_path: Path, workers: int
) -> None:
    port = free_port()
    log_file = tmp_path / "requests.jsonl"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLMEND_", "PROMETHEUS_"))}
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolmend",
            "serve",
            "--workers",
            str(workers),
            "--port",
            str(port),
            "--upstream",
            upstream.url,
            "--log-file",
            str(log_file),
        ],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_for(f"{base}/healthz", 30)
        model = upstream.script(Answer("from a worker"))
        body = json.dumps({"model": model, "messages": ASK}).encode()
        for _ in range(20):
            request = urllib.request.Request(
                f"{base}/v1/chat/completions",
                data=body,
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                assert (
                    json.loads(response.read())["choices"][0]["message"]["content"]
                    == "from a worker"
                )
        if workers > 1:
            assert len(children_of(server.pid)) >= workers
        with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
            metrics = response.read().decode()
        counted = sum(
            float(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines()
            if line.startswith("toolmend_requests_total{") and 'status="200"' in line
        )
        assert counted == 20
        assert len(log_file.read_text().splitlines()) == 20
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        assert server.stderr is not None
        server.stderr.close()


def test_serve_refuses_a_public_host_without_keys_saying_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["serve", "--host", "0.0.0.0", "--port", "1"])
    assert caught.value.code == 2
    assert "no client keys are configured" in capsys.readouterr().err


def test_serve_with_a_bad_config_file_fails_before_binding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text('[[models]]\nmatch = "x"\nmode = "fast"\n')
    with pytest.raises(SystemExit):
        main(["serve", "--config", str(path)])
    assert f"{path}: models[0].mode: 'fast' is not one of" in capsys.readouterr().err


def test_the_demo_replays_every_bundled_case_and_exits_0(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "8 of 8 cases right." in out
    for case in (
        "hermes-leak",
        "qwen3-coder-leak",
        "claude-invoke-leak",
        "kimi-xtml-leak",
        "glued-json",
        "truncated-call",
        "cwd-object",
        "repeated-failure",
    ):
        assert f"] {case}: " in out
    assert out.count("without toolmend:") == 8 and "✗" not in out
