"""The adapters under the names the docs use: `toolmend.openai.wrap`, `toolmend.litellm.completion`.

Each `toolmend.<host>` module re-exports `toolmend.integrations.<host>`; the host's own package
(`openai`, `litellm`, ...) stays the real one, inside toolmend and out.
"""

from __future__ import annotations

import importlib
import importlib.util
import subprocess
import sys

import pytest

#: public module -> (the integration modules it re-exports, the host package it needs)
PUBLIC = {
    "toolmend.openai": (["toolmend.integrations.openai"], "openai"),
    "toolmend.litellm": (["toolmend.integrations.litellm"], "litellm"),
    "toolmend.langchain": (
        ["toolmend.integrations.langchain", "toolmend.integrations.langchain_chat"],
        "langchain",
    ),
    "toolmend.pydantic_ai": (["toolmend.integrations.pydantic_ai"], "pydantic_ai"),
    "toolmend.vllm": (["toolmend.integrations.vllm"], "vllm"),
}


def _need(host: str) -> None:
    if importlib.util.find_spec(host) is None:
        pytest.skip(f"{host} is not installed")


@pytest.mark.parametrize("public", sorted(PUBLIC))
def test_the_public_module_is_the_integration_under_its_documented_name(public):
    sources, host = PUBLIC[public]
    _need(host)
    module = importlib.import_module(public)
    originals = [importlib.import_module(s) for s in sources]
    assert module.__all__
    for name in module.__all__:
        assert any(getattr(o, name, None) is getattr(module, name) for o in originals), name


def test_the_documented_entry_points_exist():
    _need("openai")
    _need("litellm")
    import toolmend.litellm
    import toolmend.openai

    assert callable(toolmend.openai.wrap)
    assert callable(toolmend.litellm.completion)
    assert callable(toolmend.litellm.acompletion)


@pytest.mark.parametrize("host", ["openai", "litellm"])
def test_the_host_package_stays_the_real_one_once_the_public_module_is_imported(host):
    _need(host)
    code = (
        f"import toolmend.{host}, toolmend.integrations.{host}, {host}, sys\n"
        f"assert sys.modules[{host!r}].__name__ == {host!r}\n"
        f"assert 'toolmend' not in sys.modules[{host!r}].__file__\n"
        f"assert sys.modules[{host!r}] is not sys.modules['toolmend.{host}']\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


def test_without_vllm_the_plugin_fails_to_import_saying_what_to_install():
    if importlib.util.find_spec("vllm") is not None:
        pytest.skip("vLLM is installed here (tests/integrations/test_vllm.py runs the plugin)")
    with pytest.raises(ImportError, match=r"toolmend\[vllm\]"):
        importlib.import_module("toolmend.integrations.vllm")
