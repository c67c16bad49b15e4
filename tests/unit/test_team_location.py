"""Library locations (folders and URIs), storage options from the AWS_* variables, --ray parsing."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from app.cli.cmd_ingest import _ray_address
from app.core.config import Settings
from app.core.location import is_remote, location_key, parse_location, redact
from app.store.objectstore import storage_options

pytestmark = pytest.mark.unit


def test_uris_stay_strings_and_paths_become_paths(tmp_path: Path) -> None:
    assert parse_location("s3://bucket/team/lib/") == "s3://bucket/team/lib"
    assert parse_location("gs://b/p") == "gs://b/p" and is_remote("az://c/p")
    assert parse_location("file:///tmp/lib") == Path("/tmp/lib")
    assert parse_location("~/lib") == Path.home() / "lib"
    assert parse_location("C:\\lib") == Path("C:\\lib")  # a drive letter is no scheme
    assert not is_remote(tmp_path) and not is_remote(str(tmp_path))
    assert Settings(library="s3://bucket/lib").library == "s3://bucket/lib"
    assert Settings(library=str(tmp_path)).library == tmp_path


def test_env_library_uri(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOOTNOTE_LIBRARY", "s3://bucket/prefix")
    assert Settings().library == "s3://bucket/prefix"


def test_redact_drops_user_info_and_query() -> None:
    assert redact("s3://KEY:SECRET@bucket/lib?token=x") == "s3://bucket/lib"
    assert location_key("s3://bucket/lib") == location_key("s3://bucket/lib/")


def test_storage_options_from_the_standard_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "never-copied")
    opts = storage_options("s3://bucket/lib")
    assert opts == {
        "aws_endpoint": "http://127.0.0.1:9000",
        "aws_region": "eu-west-1",
        "allow_http": "true",
    }
    assert storage_options(Path("/tmp/lib")) == {}


@pytest.mark.parametrize(
    ("value", "address", "extra_path"),
    [
        ("", None, None),
        ("auto", "auto", None),
        ("ray://head:10001", "ray://head:10001", None),
        ("10.0.0.5:6379", "10.0.0.5:6379", None),
        ("docs/", None, "docs/"),  # `ingest --ray docs/`: a PATH, not an address
    ],
)
def test_ray_address(value: str, address: str | None, extra_path: str | None) -> None:
    args = argparse.Namespace(ray=value, paths=["a.pdf"])
    assert _ray_address(args) == address
    assert args.paths == ["a.pdf"] + ([extra_path] if extra_path else [])
