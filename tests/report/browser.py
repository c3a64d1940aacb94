"""Headless Debian chromium for the HTML report tests: load a page offline, read what it drew.

`probe_charts` loads a copy of the page with a small probe script added, which waits for the
page to finish, measures every `[data-chart]` element's drawn SVG in the browser's own layout
(`getBBox`) and writes the figures into the DOM; chromium's `--dump-dom` then hands them back.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

#: The flags the project runs chromium with: no sandbox (root in CI), no GPU, nothing that talks
#: to the network on its own, and no host name that resolves, so a page that draws drew offline.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)
#: Virtual time the page gets to run its scripts (chromium fast-forwards timers to it).
BUDGET_MS = 15000
PROBE = """
<script>
window.addEventListener("load", () => setTimeout(() => {
  const charts = {};
  for (const el of document.querySelectorAll("[data-chart]")) {
    const svg = el.querySelector("svg.main-svg");
    const traces = [...el.querySelectorAll(".cartesianlayer g.trace")].map((t) => {
      const box = t.getBBox();
      return {width: box.width, height: box.height};
    });
    charts[el.dataset.chart] = {
      svg: svg ? {width: svg.getBBox().width, height: svg.getBBox().height,
                  rendered: svg.getBoundingClientRect().width} : null,
      traces: traces,
      text: el.textContent.trim().slice(0, 200),
    };
  }
  const out = document.createElement("pre");
  out.id = "chart-probe";
  out.textContent = JSON.stringify(charts);
  document.body.appendChild(out);
}, 500));
</script>
"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def run_chromium(url: str, *flags: str, timeout: float = 120) -> str:
    binary = chromium()
    assert binary is not None
    with tempfile.TemporaryDirectory(prefix="toolmend-chromium-") as profile:
        done = subprocess.run(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *flags, url],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    return done.stdout


def probe_charts(page: Path) -> dict[str, Any]:
    """What each chart of `page` drew, as measured in the browser."""
    probed = page.with_name(page.stem + ".probe.html")
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"))
    dom = run_chromium(probed.as_uri(), f"--virtual-time-budget={BUDGET_MS}", "--dump-dom")
    found = re.search(r'<pre id="chart-probe">(.*?)</pre>', dom, re.S)
    assert found is not None, "the probe never ran: the page's scripts did not finish"
    text = found.group(1).replace("&quot;", '"').replace("&lt;", "<").replace("&gt;", ">")
    result: dict[str, Any] = json.loads(text.replace("&amp;", "&"))
    return result
