"""Hostile and damaged PDFs, generated: bombs, absurd page counts, deep nesting, mutations.

Raw PDF syntax is written by hand here (with a correct cross-reference table) because
PyMuPDF refuses to write most of these files. Everything is deterministic for a seed.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pymupdf

FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def raw_pdf(objects: list[bytes]) -> bytes:
    """A PDF whose object i+1 is ``objects[i]``; object 1 must be the catalog."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def stream(data: bytes, *, compress: bool = True) -> bytes:
    if compress:
        data = zlib.compress(data, 9)
        return (
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + (b"\nendstream")
        )
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _deflated(pieces: Iterator[bytes]) -> bytes:
    z = zlib.compressobj(9)
    out = [z.compress(p) for p in pieces]
    out.append(z.flush())
    return b"".join(out)


def one_page(content: bytes, *, count: bytes = b"1", extra_page: bytes = b"") -> bytes:
    """A one-page PDF drawing ``content`` (an already complete stream object)."""
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count " + count + b" >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> " + extra_page + b">>",
            content,
            FONT,
        ]
    )


def text_page(text: str = "A small valid page of text about sensors and loggers.") -> bytes:
    return one_page(stream(b"BT /F1 12 Tf 72 700 Td (" + text.encode() + b") Tj ET"))


def text_bomb(inflated_bytes: int, *, line: int = 200) -> bytes:
    """One page whose content stream inflates to ``inflated_bytes`` of text drawing
    (a few hundred KB on disk for hundreds of MB of commands), all drawn inside the page
    (zero leading: every line starts at the same spot)."""
    op = b"(" + b"W" * line + b") Tj T*\n"
    n = max(1, inflated_bytes // len(op))

    def pieces() -> Iterator[bytes]:
        yield b"BT /F1 1 Tf 0 TL 10 400 Td\n"
        block = op * 4096
        for _ in range(n // 4096):
            yield block
        yield op * (n % 4096)
        yield b"ET\n"

    data = _deflated(pieces())
    body = b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream"
    return one_page(body)


def form_bomb(draws: int = 200_000, chars: int = 1_000) -> bytes:
    """A page drawing one text Form XObject ``draws`` times: tiny commands, no strings on
    the page itself, tens of millions of characters for the extractor."""
    form = b"BT /F1 1 Tf 10 400 Td (" + b"Z" * chars + b") Tj ET"
    zform = zlib.compress(form, 9)
    form_obj = (
        b"<< /Type /XObject /Subtype /Form /BBox [0 0 612 792] /Resources << /Font << /F1 5 0 R "
        b">> >> /Length %d /Filter /FlateDecode >>\nstream\n" % len(zform) + zform + b"\nendstream"
    )
    page = _deflated(iter([b"/X0 Do\n" * draws]))
    page_obj = (
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(page) + page + (b"\nendstream")
    )
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> /XObject << /X0 6 0 R >> >> >>",
            page_obj,
            FONT,
            form_obj,
        ]
    )


def chunk_bomb(pages: int = 400, words_per_page: int = 2_000) -> bytes:
    """Many small pages of distinct-looking text sharing one content stream: a small
    file that becomes thousands of passages."""
    words = b" ".join(b"w%d" % i for i in range(words_per_page))
    lines = [words[i : i + 90] for i in range(0, len(words), 90)]
    content = b"BT /F1 6 Tf 20 780 Td " + b"".join(b"(" + ln + b") Tj 0 -7 Td " for ln in lines)
    content += b" ET"
    kids = b" ".join(b"%d 0 R" % (5 + i) for i in range(pages))
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % pages,
        stream(content),
        FONT,
    ]
    for _ in range(pages):
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R "
            b"/Resources << /Font << /F1 4 0 R >> >> >>"
        )
    return raw_pdf(objects)


def page_count(count: bytes) -> bytes:
    """A valid page whose page tree claims ``count`` pages (huge, negative, not a number)."""
    return one_page(stream(b"BT /F1 12 Tf 72 700 Td (Counted) Tj ET"), count=count)


def many_pages(n: int) -> bytes:
    """A page tree with ``n`` real leaf references to one page object (page count limit)."""
    kids = b" ".join([b"3 0 R"] * n)
    return raw_pdf(
        [
            b"<< /Type /Catalog /Pages 2 0 R >>",
            b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % n,
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            stream(b"BT /F1 12 Tf 72 700 Td (Page) Tj ET"),
            FONT,
        ]
    )


def nested(depth: int, kind: str = "array") -> bytes:
    """Page resources nested ``depth`` levels deep (arrays or dictionaries)."""
    if kind == "array":
        deep = b"[" * depth + b"1" + b"]" * depth
    else:
        deep = b"<< /A " * depth + b"1" + b" >>" * depth
    return one_page(
        stream(b"BT /F1 12 Tf 72 700 Td (Nested) Tj ET"), extra_page=b"/Deep " + deep + b" "
    )


def nested_pages(depth: int) -> bytes:
    """A page tree nested ``depth`` levels deep (Pages -> Pages -> ... -> Page)."""
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>"]
    for i in range(depth):
        me, kid = 2 + i, 3 + i
        parent = b"/Parent %d 0 R " % (me - 1) if i else b""
        objects.append(b"<< /Type /Pages " + parent + b"/Kids [%d 0 R] /Count 1 >>" % kid)
    leaf = 2 + depth
    objects.append(
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
        % (leaf - 1, leaf + 1)
        + b"/Resources << /Font << /F1 %d 0 R >> >> >>" % (leaf + 2)
    )
    objects.append(stream(b"BT /F1 12 Tf 72 700 Td (Deep tree) Tj ET"))
    objects.append(FONT)
    return raw_pdf(objects)


def seed_pdf() -> bytes:
    """A small valid two-page PDF (PyMuPDF-written) that the mutations start from."""
    doc = pymupdf.open()
    for i in range(2):
        page = doc.new_page()
        page.insert_text(
            (72, 72),
            f"Page {i + 1}. The data logger samples every channel at the configured rate.\n"
            "Calibration of the sensor must be repeated every twelve months.",
            fontsize=11,
        )
    doc.set_metadata({"title": "Seed document"})
    data = doc.tobytes(garbage=0, deflate=True)
    doc.close()
    return data


def flip_bytes(data: bytes, rng: random.Random, n: int) -> bytes:
    buf = bytearray(data)
    for _ in range(n):
        buf[rng.randrange(len(buf))] = rng.randrange(256)
    return bytes(buf)


def truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(16, len(data) - 1)]


def zero_xref(data: bytes) -> bytes:
    start = data.rfind(b"xref")
    if start < 0:
        start = data.rfind(b"startxref")
    return data[:start] + b"\0" * (len(data) - start)


def mutations(count: int, seed: int = 14) -> Iterator[tuple[str, bytes]]:
    """``count`` hostile files (name, bytes), cycling through every kind of damage."""
    rng = random.Random(seed)
    base = seed_pdf()
    kinds: list[tuple[str, Callable[[], bytes]]] = [
        ("flip1", lambda: flip_bytes(base, rng, 1)),
        ("flip10", lambda: flip_bytes(base, rng, 10)),
        ("flip200", lambda: flip_bytes(base, rng, 200)),
        ("trunc", lambda: truncate(base, rng)),
        ("zeroxref", lambda: zero_xref(flip_bytes(base, rng, rng.randrange(0, 3)))),
        ("nestarr", lambda: nested(rng.choice([2_000, 50_000, 200_000]), "array")),
        ("nestdict", lambda: nested(rng.choice([2_000, 50_000]), "dict")),
        ("nesttree", lambda: nested_pages(rng.choice([200, 2_000]))),
        ("count", lambda: page_count(rng.choice([b"2147483647", b"-5", b"1e300", b"(x)", b"0"]))),
        ("bomb", lambda: text_bomb(rng.choice([300_000, 3_000_000, 80_000_000]))),
        ("truncbomb", lambda: truncate(text_bomb(5_000_000), rng)),
        ("rawpage", lambda: flip_bytes(text_page(), rng, rng.randrange(1, 20))),
    ]
    for i in range(count):
        name, make = kinds[i % len(kinds)]
        yield f"{i:03d}-{name}.pdf", make()


def write_mutations(folder: Path, count: int, seed: int = 14) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, data in mutations(count, seed):
        path = folder / name
        path.write_bytes(data)
        out.append(path)
    return out
