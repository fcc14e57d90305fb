"""Test helper: a throwaway PKI made with trustme (server CA, client CA, certificates as PEM files) and
the SDK demo server over HTTPS (tests/peers/https_demo_server.py)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import trustme
from cryptography.hazmat.primitives import serialization

from tests.http_peers import LineProcess
from tests.warm_peers import peer_argv


@dataclass(frozen=True)
class Pki:
    ca: Path  # signs the server's certificate
    server_cert: Path
    server_key: Path
    client_ca: Path  # signs the client's certificate (what a mutual-TLS server trusts)
    client_cert: Path
    client_key: Path
    client_combined: Path  # certificate and key in one file
    client_key_encrypted: Path  # the same key, encrypted with a passphrase


def make_pki(directory: Path) -> Pki:
    ca, client_ca = trustme.CA(), trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = client_ca.issue_cert("client.inspector.test")
    files = Pki(*(directory / f"{name}.pem" for name in Pki.__dataclass_fields__))
    ca.cert_pem.write_to_path(str(files.ca))
    client_ca.cert_pem.write_to_path(str(files.client_ca))
    files.server_cert.write_bytes(b"".join(blob.bytes() for blob in server.cert_chain_pems))
    server.private_key_pem.write_to_path(str(files.server_key))
    client.cert_chain_pems[0].write_to_path(str(files.client_cert))
    client.private_key_pem.write_to_path(str(files.client_key))
    client.private_key_and_cert_chain_pem.write_to_path(str(files.client_combined))
    key = serialization.load_pem_private_key(client.private_key_pem.bytes(), None)
    files.client_key_encrypted.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"passphrase"),
        )
    )
    return files


@contextmanager
def https_demo_server(pki: Pki, *, mutual: bool = True) -> Iterator[str]:
    """The demo server over HTTPS (mutual TLS unless `mutual=False`); yields its MCP URL."""
    # Forked from the warm server (tests/warm_peers.py): not ~2.4 s of the SDK's imports a start.
    argv = peer_argv("tests.peers.https_demo_server", "--cert", str(pki.server_cert))
    argv += ["--key", str(pki.server_key)] + (["--client-ca", str(pki.client_ca)] if mutual else [])
    server = LineProcess(argv)
    try:
        yield server.wait_for(r"listening on (\S+)").group(1)
    finally:
        server.stop()
