"""One writer at a time for a library on object storage: a lease with an expiry.

Why a lease and not LanceDB's own concurrency: Lance keeps each *table* consistent, but
Footnote's rule for a *document* spans three tables (chunks, vectors, then the ``documents``
row as the commit marker), and a writer's recovery sweep deletes chunks that have no
committed document yet: with two writers, one would sweep away the other's in-flight
document. Lance offers no cross-table lock, and on S3 its table creation and conditional
updates did not exclude a concurrent writer in our test (two of four racing writers both
"won" in about one round in three against the S3 test server). So a second writer must
refuse, with a message saying who holds the library and until when.

The lease is a series of small JSON objects beside the tables, ``_footnote_lease/<n>.json``:
grant n+1 is taken by creating its object with put-if-not-exists (``If-None-Match: *`` on
S3; the same primitive on GCS and Azure), which the object store grants to exactly one of
any number of racing writers; the winner reads its grant back after a moment, so a store
whose create is not atomic (the moto test server) still ends with one writer. The holder rewrites its own grant to renew it (every
``ttl / 3``) and to release it at exit. A writer killed with -9 stops renewing: its grant
expires after ``ttl``, or at once when the next writer runs on the same host and sees the
holder's process is gone. A holder that could not renew for a whole ``ttl`` (a stall, a
network cut) stops writing, because a newer grant may exist by then. Expiry compares wall
clocks of different machines: fine for a TTL of a minute with NTP-synchronised clocks.
"""

from __future__ import annotations

import atexit
import configparser
import contextlib
import json
import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.core.errors import LibraryBusyError, StoreError
from app.store.objectstore import storage_options

logger = logging.getLogger(__name__)

PREFIX = "_footnote_lease"
DEFAULT_TTL_S = 60.0
# How long a new grant settles before it is read back (see Lease._acquire).
SETTLE_S = 0.2


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


def _profile_credentials() -> dict[str, str]:
    """Keys from the AWS shared credentials file (``AWS_PROFILE`` or default), if the
    environment has none: the object-store client reads only the environment."""
    if os.environ.get("AWS_ACCESS_KEY_ID"):
        return {}
    path = Path(os.environ.get("AWS_SHARED_CREDENTIALS_FILE", "~/.aws/credentials")).expanduser()
    parser = configparser.ConfigParser()
    with contextlib.suppress(OSError, configparser.Error):
        parser.read(path)
    section = os.environ.get("AWS_PROFILE", "default")
    if not parser.has_section(section):
        return {}
    keys = {
        "aws_access_key_id": "access_key_id",
        "aws_secret_access_key": "secret_access_key",
        "aws_session_token": "token",
    }
    return {
        ours: parser.get(section, theirs)
        for theirs, ours in keys.items()
        if parser.has_option(section, theirs)
    }


def open_object_store(location: str) -> Any:
    """An obstore client for the library's URI (S3 settings mapped from the AWS_* variables)."""
    from obstore.store import from_url

    opts = storage_options(location)
    if not location.lower().startswith(("s3://", "s3a://")):
        return from_url(location)
    config: dict[str, Any] = dict(_profile_credentials())
    if "aws_endpoint" in opts:
        config["endpoint"] = opts["aws_endpoint"]
    if "aws_region" in opts:
        config["region"] = opts["aws_region"]
    client: Any = {"allow_http": True} if opts.get("allow_http") == "true" else None
    s3_config: Any = config or None  # keys of obstore's S3Config (a TypedDict)
    return from_url(location, config=s3_config, client_options=client)


class Lease:
    """The writer lease of one library. ``hold()`` takes it for the rest of the session
    (released by ``release()`` or at exit); ``try_hold()`` takes it for one block only."""

    def __init__(
        self,
        location: str,
        where: str,
        *,
        ttl_s: float | None = None,
        on_acquire: Callable[[], None] | None = None,
        store: Any = None,
    ) -> None:
        self._location = location
        self._where = where
        self._on_acquire = on_acquire
        self._store = store
        self.ttl_s = ttl_s or float(os.environ.get("FOOTNOTE_LEASE_TTL", DEFAULT_TTL_S))
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._epoch = 0
        self._mutex = threading.RLock()
        self._held = False
        self._sticky = False
        self._lost = False
        self._renewed_at = 0.0  # monotonic time of the last successful write of our grant
        self._stop = threading.Event()
        self._renewer: threading.Thread | None = None

    # --- the lock interface the store uses ---------------------------------------------

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Hold the lease for this block and keep it afterwards; refuse if someone else has it."""
        with self._mutex:
            if not self._held and not self._acquire():
                raise LibraryBusyError(self._busy_message(), hint=self._busy_hint())
            self._sticky = True
            self.check()
            yield

    @contextlib.contextmanager
    def try_hold(self) -> Iterator[bool]:
        """Like hold() but never refuses: yields whether the lease was obtained; a lease taken
        only for this block is given back after it."""
        if not self._mutex.acquire(blocking=False):
            yield False
            return
        try:
            had = self._held
            got = had or self._acquire()
            try:
                yield got
            finally:
                if got and not had and not self._sticky:
                    self.release()
        finally:
            self._mutex.release()

    def check(self) -> None:
        """Refuse to write once the lease may have passed to another writer."""
        if self._held and time.monotonic() - self._renewed_at > self.ttl_s:
            self._lost = True
        if self._lost:
            raise StoreError(
                f"This process lost its writer lease on {self._where} (it could not renew it "
                f"for {self.ttl_s:.0f} s) and stopped writing to keep the library consistent.",
                hint="Run the command again; finished documents are kept.",
            )

    @property
    def held(self) -> bool:
        return self._held

    # --- grants ----------------------------------------------------------------------------

    @property
    def _os(self) -> Any:
        if self._store is None:
            self._store = open_object_store(self._location)
        return self._store

    @staticmethod
    def _name(epoch: int) -> str:
        return f"{PREFIX}/{epoch:012d}.json"

    def _epochs(self) -> list[int]:
        import obstore

        found = []
        for batch in obstore.list(self._os, prefix=PREFIX + "/"):
            for meta in batch:
                stem = meta["path"].rsplit("/", 1)[-1].removesuffix(".json")
                if stem.isdigit():
                    found.append(int(stem))
        return sorted(found)

    def _read(self, epoch: int) -> dict[str, Any] | None:
        import obstore

        try:
            raw = bytes(obstore.get(self._os, self._name(epoch)).bytes())
        except Exception:  # noqa: BLE001 - deleted meanwhile by a newer holder, or a fault
            return None
        try:
            data: dict[str, Any] = json.loads(raw)
        except ValueError:  # a corrupt grant holds nobody: treat it as expired
            return {}
        return data

    def _row(self) -> dict[str, Any] | None:
        """The latest grant, or None when no writer ever took one."""
        epochs = self._epochs()
        return self._read(epochs[-1]) if epochs else None

    def _grant(self, expires_at: float) -> bytes:
        return json.dumps(
            {
                "holder": self.holder,
                "host": socket.gethostname(),
                "pid": os.getpid(),
                "expires_at": expires_at,
            }
        ).encode()

    def _acquire(self) -> bool:
        import obstore

        epochs = self._epochs()
        latest = epochs[-1] if epochs else 0
        row = self._read(latest) if epochs else None
        if epochs and row is None:
            # The latest grant exists but could not be read (a newer holder deleted it, or a
            # passing fault): never take over a grant we cannot see; the caller tries again.
            logger.info("writer lease %d on %s unreadable; not taking it", latest, self._where)
            return False
        if row is not None and row.get("holder") != self.holder:
            live = float(row.get("expires_at") or 0) > time.time()
            if live and not self._stale_on_this_host(row):
                return False
            if live:
                logger.warning("the writer of %s on this host is gone; taking over", self._where)
        epoch = latest + 1
        try:
            obstore.put(
                self._os, self._name(epoch), self._grant(time.time() + self.ttl_s), mode="create"
            )
        except Exception as exc:  # noqa: BLE001 - AlreadyExists: another writer took it first
            logger.info(
                "writer lease %d on %s not granted: %s", epoch, self._where, type(exc).__name__
            )
            return False
        # Read the grant back after a moment: a store whose create-if-absent is not atomic
        # (the moto S3 test server, under concurrent requests, let two of four racing writers
        # both create the same grant) keeps only the last write, so exactly one writer finds
        # its own holder id there. The others lose as if the create had failed.
        time.sleep(SETTLE_S)
        if (self._read(epoch) or {}).get("holder") != self.holder:
            logger.info("writer lease %d on %s went to another writer", epoch, self._where)
            return False
        self._epoch = epoch
        self._held, self._lost = True, False
        self._renewed_at = time.monotonic()
        for old in epochs:
            with contextlib.suppress(Exception):  # best effort; a later holder retries
                obstore.delete(self._os, self._name(old))
        self._start_renewer()
        logger.info("writer lease %d on %s taken (ttl %.0f s)", epoch, self._where, self.ttl_s)
        if self._on_acquire is not None:
            self._on_acquire()  # e.g. the recovery sweep: only the writer may repair
        return True

    @staticmethod
    def _stale_on_this_host(row: dict[str, Any]) -> bool:
        pid = int(row.get("pid") or 0)
        return (
            row.get("host") == socket.gethostname() and pid != os.getpid() and not _pid_alive(pid)
        )

    def _start_renewer(self) -> None:
        if self._renewer is not None and self._renewer.is_alive():
            return
        self._stop.clear()
        self._renewer = threading.Thread(target=self._renew_loop, name="lease-renew", daemon=True)
        self._renewer.start()
        atexit.register(self.release)

    def _renew_loop(self) -> None:
        import obstore

        while not self._stop.wait(self.ttl_s / 3):
            try:
                if max(self._epochs(), default=0) > self._epoch:
                    logger.error("writer lease on %s was taken over by another writer", self._where)
                    self._lost, self._held = True, False
                    return
                started = time.monotonic()
                obstore.put(
                    self._os, self._name(self._epoch), self._grant(time.time() + self.ttl_s)
                )
                self._renewed_at = started
            except Exception:
                logger.warning("could not renew the writer lease; retrying", exc_info=True)

    def release(self) -> None:
        """Give the lease back (idempotent); the next writer can start at once."""
        import obstore

        self._stop.set()
        with self._mutex:
            if not self._held:
                return
            self._held = False
            self._sticky = False
            try:
                if max(self._epochs(), default=0) == self._epoch:
                    obstore.put(self._os, self._name(self._epoch), self._grant(0.0))
                logger.info("writer lease on %s released", self._where)
            except Exception:  # noqa: BLE001 - it will expire anyway
                logger.warning("could not release the writer lease; it expires by itself")

    def _busy_message(self) -> str:
        row = self._row() or {}
        until = datetime.fromtimestamp(float(row.get("expires_at") or 0), UTC)
        who = f"{row.get('host') or '?'} (process {row.get('pid') or '?'})"
        return (
            f"Another writer, on {who}, is writing to the team library {self._where}; "
            f"its lease runs until {until:%H:%M:%S} UTC unless it renews it."
        )

    @staticmethod
    def _busy_hint() -> str:
        return (
            "Only one writer at a time: wait until that import finishes, then run the command "
            "again. Reading (search, ask, docs) works meanwhile."
        )
