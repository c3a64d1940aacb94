"""Scale out: three `toolmend serve` replicas behind a real nginx, as the README's example runs.

The nginx configuration is `examples/scale_out/nginx.conf` itself, its loopback ports swapped
for free ones. Skipped where no `nginx` is installed (Debian: `apt-get install nginx-light`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
import pytest

from toolmend.server.demo.scripted import Answer
from toolmend.server.loopback import free_port

from .servers import ASK, HERMES_OSLO, TOOLS, ScriptedHandle, stream_parts
from .test_guard_loop import READ_TOOL, failing_history
from .test_scale import wait_for

NGINX = shutil.which("nginx")
EXAMPLE = Path(__file__).parents[2] / "examples" / "scale_out" / "nginx.conf"
EXAMPLE_PORTS = (4000, 4001, 4002, 4003)  # the balancer's, then the replicas'

pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


@dataclass
class Cluster:
    url: str
    logs: list[Path]

    def client(self) -> openai.OpenAI:
        return openai.OpenAI(base_url=f"{self.url}/v1", api_key="sk-client", max_retries=0)

    def records(self) -> list[list[dict[str, Any]]]:
        """Each replica's request log."""
        return [
            [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            if log.exists()
            else []
            for log in self.logs
        ]


def nginx_config(tmp_path: Path, ports: list[int]) -> Path:
    """The example, on `ports`, inside the smallest main configuration nginx runs with."""
    site = EXAMPLE.read_text()
    for example, port in zip(EXAMPLE_PORTS, ports, strict=True):
        site = site.replace(f"127.0.0.1:{example}", f"127.0.0.1:{port}")
    temp = tmp_path / "nginx-temp"
    temp.mkdir()
    main = f"""
daemon off;
master_process off;
pid {tmp_path}/nginx.pid;
error_log {tmp_path}/nginx-error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    {site}
}}
"""
    path = tmp_path / "nginx.conf"
    path.write_text(main)
    return path


@pytest.fixture
def cluster(upstream: ScriptedHandle, tmp_path: Path) -> Iterator[Cluster]:
    ports = [free_port() for _ in EXAMPLE_PORTS]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TOOLMEND_", "PROMETHEUS_"))}
    logs = [tmp_path / f"requests-{port}.jsonl" for port in ports[1:]]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for port, log in zip(ports[1:], logs, strict=True):
            serve = [sys.executable, "-m", "toolmend", "serve", "--port", str(port)]
            serve += ["--upstream", upstream.url, "--log-file", str(log)]
            procs.append(subprocess.Popen(serve, env=env, stderr=subprocess.DEVNULL))
        assert NGINX is not None
        conf = nginx_config(tmp_path, ports)
        procs.append(
            subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(conf)], stderr=subprocess.PIPE)
        )
        for port in ports[1:]:
            wait_for(f"http://127.0.0.1:{port}/healthz", 60)
        wait_for(f"http://127.0.0.1:{ports[0]}/healthz", 30)
        yield Cluster(f"http://127.0.0.1:{ports[0]}", logs)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def test_a_stream_through_the_balancer_arrives_chunk_by_chunk_not_buffered(
    upstream: ScriptedHandle, cluster: Cluster
) -> None:
    words = [f"w{i} " for i in range(12)]
    model = upstream.script(Answer("".join(words), chunk_size=4, pace_ms=150))
    started = time.monotonic()
    arrivals: list[float] = []
    text = []
    stream = cluster.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    for chunk in stream:
        for choice in chunk.choices:
            if choice.delta.content:
                arrivals.append(time.monotonic() - started)
                text.append(choice.delta.content)
    assert "".join(text) == "".join(words)
    # Chunks paced 150 ms apart (about 1.8 s in all): a buffering balancer would hand them over
    # together at the end. The spread is measured over the whole stream, since on a loaded
    # machine the first ones may come together (a fresh replica's warm-up) and later ones in
    # bursts.
    assert arrivals[-1] - arrivals[0] > 0.4


def test_a_leaked_call_comes_out_as_a_real_call_through_the_balancer(
    upstream: ScriptedHandle, cluster: Cluster
) -> None:
    model = upstream.script(Answer(HERMES_OSLO))
    stream = cluster.client().chat.completions.create(
        model=model, messages=ASK, tools=TOOLS, stream=True
    )
    text, calls, finishes = stream_parts(stream)
    assert "<tool_call>" not in text
    assert [(c["name"], json.loads(c["arguments"])) for c in calls.values()] == [
        ("get_weather", {"city": "Oslo"})
    ]
    assert finishes[-1] == "tool_calls"


def test_every_replica_guards_a_conversation_alike_so_any_replica_can_serve_any_turn(
    upstream: ScriptedHandle, cluster: Cluster
) -> None:
    model = upstream.script(Answer("ok"))
    client = cluster.client()
    for times in (1, 2, 3, 3, 3, 3):
        client.chat.completions.create(
            model=model, messages=failing_history(times), tools=[READ_TOOL]
        )
    sent = [r["body"]["messages"] for r in upstream.requests_for(model)]
    assert [m[-1]["content"].split(" ")[3] for m in sent] == [
        "FILE_NOT_FOUND",  # the first failure: its own guidance
        "FILE_NOT_FOUND",  # the second: the same pattern, strengthened
        *["MODEL_STUCK_LOOP"] * 4,  # the third in a row, on whichever replica serves it
    ]
    assert len({json.dumps(m) for m in sent[2:]}) == 1  # the same history, the same guidance
    served = [len(records) for records in cluster.records()]
    assert sum(served) == 6
    assert sum(1 for n in served if n) >= 2  # round-robin spread the turns over replicas
