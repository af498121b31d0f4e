"""A real S3 server for the remote-cache tests: moto's, on 127.0.0.1, one per session.

Each test gets its own bucket (``remote_url``) and the environment a client needs to
reach it (``s3_env``: endpoint and dummy credentials), for this process (set with
monkeypatch) and for child processes (passed explicitly). Skipped, with the reason, when
moto or s3fs is not installed (``pip install -e '.[test]'`` installs both).
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("s3fs", reason="the remote cache tests need s3fs (pip install -e '.[test]')")
moto_server = pytest.importorskip(
    "moto.server", reason="the remote cache tests need moto[server] (pip install -e '.[test]')"
)


_CREDENTIALS = {
    "aws_access_key_id": "testing",
    "aws_secret_access_key": "testing",
    "region_name": "us-east-1",
}


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class S3Server:
    """moto's S3 server in a thread of this process; ``stop()``/``start()`` at will."""

    def __init__(self) -> None:
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._server: Any = None
        self._client: Any = None

    def start(self) -> None:
        import logging

        logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request
        self._server = moto_server.ThreadedMotoServer(
            ip_address="127.0.0.1", port=self.port, verbose=False
        )
        self._server.start()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server = None

    def client(self) -> Any:
        """A boto3 S3 client of this server (made once: each costs ~1 s)."""
        if self._client is None:
            import boto3

            self._client = boto3.client("s3", endpoint_url=self.endpoint, **_CREDENTIALS)
        return self._client

    def env(self) -> dict[str, str]:
        """What an S3 client (in this process or a child) needs to reach the server."""
        return {
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_CONFIG_FILE": "/nonexistent",
            "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent",
        }


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    server = S3Server()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def s3_env(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    env = s3_server.env()
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    return env


@pytest.fixture
def remote_url(s3_server: S3Server, s3_env: dict[str, str]) -> str:
    """``s3://<fresh bucket>/gradc``: an empty cache."""
    bucket = f"gradc-{uuid.uuid4().hex[:12]}"
    s3_server.client().create_bucket(Bucket=bucket)
    return f"s3://{bucket}/gradc"
