"""Regression (issue 14, HTTPS upstreams: TLS options): an HTTPS server with a private CA or one that
asks for a client certificate could not be recorded, called, replayed or probed: the only trust was
the system store (or SSL_CERT_FILE), there was no way to present a client certificate, and no
explicit way to skip the check for a test server.

Now `proxy`, `call`, `replay`, `versions` (and `mock-server --forward`, `ui`) take `--ca-bundle`,
`--client-cert` (`--client-key`) and `--insecure` (a loud warning on stderr); unusable files are a
one-line error with exit status 2, before anything starts.

The proxy runs as its own process (a listener the SDK client connects to); `call`, `replay`,
`versions` and the refusals run in-process (`mcp_inspect`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import mcp
import pytest

from inspector.store import list_sessions, open_engine
from tests.cli_in_process import Ran
from tests.http_peers import proxy_in_process
from tests.tls import Pki, https_demo_server, make_pki


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Pki:
    return make_pki(tmp_path_factory.mktemp("pki"))


async def _echo(url: str) -> str:
    with anyio.fail_after(60):
        async with mcp.Client(url, mode="legacy") as client:
            result = await client.call_tool("echo", {"text": "over mutual TLS"})
    return result.content[0].text  # type: ignore[union-attr]


@pytest.mark.anyio
async def test_proxy_to_a_mutual_tls_server_with_a_private_ca(pki: Pki, db_path: Path) -> None:
    tls = ["--ca-bundle", str(pki.ca), "--client-cert", str(pki.client_cert)]
    with https_demo_server(pki) as target:
        with proxy_in_process(target, db_path, *tls, "--client-key", str(pki.client_key)) as (url, proxy):
            assert await _echo(url) == "over mutual TLS"
            assert any("upstream client: built-in" in line for line in proxy.output)
        with proxy_in_process(target, db_path, *tls[:2]) as (url, _proxy):  # no client certificate
            refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
    assert refused.status_code == 502
    sessions = [s for s in list_sessions(open_engine(db_path)) if s.message_count]
    assert sessions and sessions[-1].target == target


def test_untrusted_certificate_is_a_502_with_the_way_out_and_insecure_warns(pki: Pki, db_path: Path) -> None:
    with https_demo_server(pki, mutual=False) as target:
        with proxy_in_process(target, db_path) as (url, _proxy):
            refused = httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, timeout=30)
        with proxy_in_process(target, db_path, "--insecure") as (url, proxy):
            answered = httpx.post(
                url,
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"accept": "application/json, text/event-stream"},
                timeout=30,
            )
            warning = "".join(proxy.output)
    assert refused.status_code == 502 and "CERTIFICATE_VERIFY_FAILED" in refused.text
    assert "--ca-bundle FILE" in refused.text and "--insecure" in refused.text
    assert answered.status_code != 502, answered.text
    assert "WARNING: --insecure" in warning


def test_call_replay_and_versions_reach_a_mutual_tls_server(
    pki: Pki, db_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    tls = ["--ca-bundle", str(pki.ca), "--client-cert", str(pki.client_combined), "--db", str(db_path)]
    params = json.dumps({"name": "echo", "arguments": {"text": "hi"}})
    with https_demo_server(pki) as target:
        called = mcp_inspect("call", "tools/call", "--url", target, "--params", params, *tls)
        assert called.returncode == 0, called.stderr
        assert json.loads(called.stdout)["content"][0]["text"] == "hi"
        replayed = mcp_inspect("replay", "last", "--url", target, *tls)
        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        probed = mcp_inspect(
            "versions", "--url", target, "--revisions", "2025-06-18,2025-11-25", "--json", *tls
        )
        assert probed.returncode == 0, probed.stdout + probed.stderr
        untrusting = mcp_inspect("call", "tools/list", "--url", target, "--db", str(db_path))
        assert untrusting.returncode == 2 and "CERTIFICATE_VERIFY_FAILED" in untrusting.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ca-bundle", "/nonexistent/ca.pem"], "--ca-bundle /nonexistent/ca.pem: cannot read it"),
        (["--ca-bundle", "{tmp}"], "is a folder, not a PEM file"),
        (["--ca-bundle", "{garbage}"], "not a PEM certificate bundle"),
        (["--client-cert", "{garbage}"], "not a PEM certificate with its private key"),
        (["--client-key", "{key}"], "--client-key needs --client-cert"),
        (["--client-cert", "{cert}", "--client-key", "{encrypted}"], "the key is encrypted"),
        (["--insecure", "--ca-bundle", "{ca}"], "not both"),
    ],
)
def test_unusable_tls_files_are_one_clear_line(
    pki: Pki, tmp_path: Path, args: list[str], message: str, mcp_inspect: Callable[..., Ran]
) -> None:
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a certificate\n")
    names = {
        "tmp": tmp_path,
        "garbage": garbage,
        "key": pki.client_key,
        "cert": pki.client_cert,
        "encrypted": pki.client_key_encrypted,
        "ca": pki.ca,
    }
    args = [a.format(**names) for a in args]
    # One command per case: every command checks them through the same `command_setup.outbound` step.
    command = ["proxy", "--target", "https://127.0.0.1:9/mcp", "--listen", "127.0.0.1:0"]
    if "encrypted" in message:
        command = ["call", "tools/list", "--url", "https://127.0.0.1:9/mcp"]
    done = mcp_inspect(*command, "--db", str(tmp_path / "rec.db"), *args)
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr


def test_tls_options_with_a_stdio_command_are_refused(
    pki: Pki, tmp_path: Path, mcp_inspect: Callable[..., Ran]
) -> None:
    done = mcp_inspect("call", "tools/list", "--db", str(tmp_path / "r.db"), "--insecure", "--", "true")
    assert done.returncode == 2 and "give --url URL" in done.stderr
