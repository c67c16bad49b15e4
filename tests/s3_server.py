"""A real S3-compatible server for tests: moto in server mode on 127.0.0.1 (a free port).

LanceDB talks to it over HTTP exactly as to AWS S3 (create, add, full-text index, vector
search, reopen), so the team-library tests exercise the real object-store code path. The
server runs on a thread of the test process; CLI subprocesses reach it through the
standard AWS_* variables that ``S3Library.env`` provides (dummy credentials: moto accepts
any).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

ACCESS = {"AWS_ACCESS_KEY_ID": "footnote-test", "AWS_SECRET_ACCESS_KEY": "footnote-test-secret"}


@dataclass
class S3Server:
    endpoint: str
    env: dict[str, str] = field(default_factory=dict)

    def new_bucket(self) -> str:
        import boto3

        name = f"footnote-{uuid.uuid4().hex[:10]}"
        boto3.client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1", **_keys()
        ).create_bucket(Bucket=name)
        return name


@dataclass
class S3Library:
    """A fresh bucket on the test server and the URI of a library inside it."""

    server: S3Server
    bucket: str
    uri: str

    @property
    def env(self) -> dict[str, str]:
        """The environment a CLI subprocess needs (the test's own plus the AWS_* variables)."""
        return {**os.environ, **self.server.env}


def _keys() -> dict[str, str]:
    return {
        "aws_access_key_id": ACCESS["AWS_ACCESS_KEY_ID"],
        "aws_secret_access_key": ACCESS["AWS_SECRET_ACCESS_KEY"],
    }


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    import logging

    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    env = {
        **ACCESS,
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ALLOW_HTTP": "true",
    }
    try:
        yield S3Server(endpoint=endpoint, env=env)
    finally:
        server.stop()


@pytest.fixture
def s3_library(s3_server: S3Server, monkeypatch: pytest.MonkeyPatch) -> S3Library:
    """A library URI in a new bucket; this process's environment points at the server too."""
    for key, value in s3_server.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    bucket = s3_server.new_bucket()
    uri = f"s3://{bucket}/team/library"
    monkeypatch.setenv("FOOTNOTE_LIBRARY", uri)
    return S3Library(server=s3_server, bucket=bucket, uri=uri)
