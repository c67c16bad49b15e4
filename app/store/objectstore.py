"""Connecting LanceDB to a library on object storage (s3://, gs://, az://).

Credentials are never read or passed here: LanceDB's object-store layer finds them where
every AWS / GCP / Azure tool does (``AWS_ACCESS_KEY_ID`` / ``AWS_SECRET_ACCESS_KEY`` /
``AWS_SESSION_TOKEN``, ``AWS_PROFILE`` and ``~/.aws/credentials`` / ``~/.aws/config``, instance
roles; ``GOOGLE_APPLICATION_CREDENTIALS``; ``AZURE_STORAGE_*``). Only the non-secret settings
of an S3-compatible server are mapped, because the underlying client spells them differently
from the AWS CLI: ``AWS_ENDPOINT_URL`` (e.g. a MinIO, Ceph or moto server), ``AWS_REGION`` /
``AWS_DEFAULT_REGION`` and ``AWS_ALLOW_HTTP=true`` for a plain-http endpoint.
"""

from __future__ import annotations

import os
from datetime import timedelta
from typing import Any

import lancedb

from app.core.location import LibraryLocation, is_remote

REMOTE_REFRESH_S = 5.0


def storage_options(location: LibraryLocation) -> dict[str, str]:
    """LanceDB ``storage_options`` for ``location`` from the standard environment variables."""
    if not is_remote(location) or not str(location).lower().startswith(("s3://", "s3a://")):
        return {}
    opts: dict[str, str] = {}
    endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
    if endpoint:
        opts["aws_endpoint"] = endpoint
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region:
        opts["aws_region"] = region
    if os.environ.get("AWS_ALLOW_HTTP", "").strip().lower() in ("1", "true", "yes"):
        opts["allow_http"] = "true"
    return opts


def connect(location: LibraryLocation, **kwargs: Any) -> Any:
    """A LanceDB connection whose reads see what other processes commit.

    Locally every query checks for a newer version (read_consistency_interval=0, ~0.2 ms).
    On object storage that check is a LIST request per table per query, so a team library
    re-checks at most every ``FOOTNOTE_REMOTE_REFRESH_S`` seconds (default 5): a desktop sees
    a writer's new documents within that time; a process always sees its own writes at once.
    """
    if is_remote(location):
        refresh = float(os.environ.get("FOOTNOTE_REMOTE_REFRESH_S", REMOTE_REFRESH_S))
        kwargs.setdefault("read_consistency_interval", timedelta(seconds=refresh))
    kwargs.setdefault("read_consistency_interval", timedelta(0))
    opts = storage_options(location)
    if opts:
        kwargs["storage_options"] = opts
    return lancedb.connect(str(location), **kwargs)
