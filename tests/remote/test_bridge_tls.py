"""The bridge over TLS: `bridge serve --certfile --keyfile` serves HTTPS and WSS (uvicorn's TLS),
our client connects with `verify=` the certificate's authority, and `bridge connect --ca-certs`
reaches it from a stdio client; a client that does not trust the certificate is refused. The
certificate is a throwaway one for 127.0.0.1, made by the `openssl` command for each run."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
from acp_protocol.v1.client import connect_remote, spawn_agent

from tests.remote.agents import RecordingClient, initialize_request, new_session, prompt
from tests.remote.test_bridge import BRIDGE, OUR_AGENT, bridge_serving


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(certificate, key), PEM, self-signed for IP 127.0.0.1, valid one day."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("the TLS tests need the openssl command: install OpenSSL (apt install openssl)")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            *(openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"),
            *("-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"),
            *("-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def _tls_options(certificate: tuple[Path, Path]) -> tuple[str, ...]:
    return ("--certfile", str(certificate[0]), "--keyfile", str(certificate[1]))


@pytest.mark.parametrize("scheme", ["https", "wss"])
async def test_a_client_trusting_the_certificate_prompts_over_tls(
    certificate: tuple[Path, Path], scheme: str
) -> None:
    trusted = ssl.create_default_context(cafile=str(certificate[0]))
    client = RecordingClient()
    async with bridge_serving(
        sys.executable, OUR_AGENT, options=_tls_options(certificate)
    ) as bridge:
        assert bridge.url.startswith("https://127.0.0.1:")
        url = bridge.url.replace("https", scheme, 1)
        async with connect_remote(client, url, verify=trusted) as connection:
            await connection.agent.initialize(initialize_request())
            session_id = (await connection.agent.session_new(new_session())).session_id
            response = await connection.agent.session_prompt(prompt(session_id, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.texts() == ["one ", "two ", "three"]


@pytest.mark.parametrize("scheme", ["https", "wss"])
async def test_a_client_that_does_not_trust_the_certificate_is_refused(
    certificate: tuple[Path, Path], scheme: str
) -> None:
    async with bridge_serving(
        sys.executable, OUR_AGENT, options=_tls_options(certificate)
    ) as bridge:
        url = bridge.url.replace("https", scheme, 1)
        with pytest.raises(Exception, match=r"CERTIFICATE_VERIFY_FAILED|certificate verify failed"):
            async with connect_remote(RecordingClient(), url) as connection:
                await connection.agent.initialize(initialize_request())
        assert "agent started" not in bridge.text  # refused in the handshake, before any agent


async def test_bridge_connect_with_ca_certs_reaches_a_tls_bridge(
    certificate: tuple[Path, Path],
) -> None:
    client = RecordingClient()
    async with bridge_serving(
        sys.executable, OUR_AGENT, options=_tls_options(certificate)
    ) as bridge:
        command = (*BRIDGE, "connect", "--ca-certs", str(certificate[0]), bridge.url)
        async with spawn_agent(client, *command) as connection:
            await connection.agent.initialize(initialize_request())
            session_id = (await connection.agent.session_new(new_session())).session_id
            response = await connection.agent.session_prompt(prompt(session_id, "stream"))
    assert response.stop_reason == "end_turn"
    assert client.texts() == ["one ", "two ", "three"]


def test_serve_with_a_certificate_but_no_key_is_one_line(certificate: tuple[Path, Path]) -> None:
    done = subprocess.run(
        [*BRIDGE, "serve", "--port", "0", "--certfile", str(certificate[0]), "--", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr == "bridge serve: TLS needs both --certfile and --keyfile\n"


def test_serve_with_a_key_that_does_not_match_is_one_line(
    certificate: tuple[Path, Path], tmp_path: Path
) -> None:
    other = tmp_path / "other.pem"
    subprocess.run(
        [
            *("openssl", "genpkey", "-algorithm", "EC"),
            *("-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", str(other)),
        ],
        check=True,
        capture_output=True,
    )
    done = subprocess.run(
        [
            *(*BRIDGE, "serve", "--port", "0", "--certfile", str(certificate[0])),
            *("--keyfile", str(other), "--", "true"),
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("bridge serve: cannot serve TLS with ")
    assert len(done.stderr.splitlines()) == 1
