from __future__ import annotations

import pytest

from app.core.charmap import CharMap, Piece, Rect
from app.core.errors import Cancelled, EncryptedPdfError, FootnoteError
from app.core.progress import CancelToken, Progress
from app.core.text import sentence_spans, split_sentences

pytestmark = pytest.mark.unit


def test_sentences_respect_abbreviations_and_cover_text() -> None:
    text = 'Use e.g. a macro. Fig. 3 shows it! Then "quoted." Next? yes, lower. Final'
    sents = split_sentences(text)
    assert sents == [
        "Use e.g. a macro.",
        "Fig. 3 shows it!",
        'Then "quoted."',
        "Next? yes, lower.",
        "Final",
    ]
    # spans are ordered, non-overlapping and lose no non-space character
    spans = sentence_spans(text)
    assert "".join(text[s:e] for s, e in spans).replace(" ", "") == text.replace(" ", "")


def test_long_sentences_are_cut_at_spaces() -> None:
    text = " ".join(["word"] * 300) + "."
    for s, e in sentence_spans(text, max_chars=100):
        assert e - s <= 100
        assert not text[s:e].startswith(" ")


def test_charmap_rects_merge_per_line_and_cut_partial_pieces() -> None:
    cm = CharMap.from_pieces(
        [
            Piece(0, 5, 1, 10, 10, 60, 20, 1),  # "Hello" line 1
            Piece(6, 11, 1, 70, 10, 120, 20, 1),  # "world" line 1
            Piece(12, 20, 2, 10, 30, 90, 40, 2),  # next page
        ]
    )
    rects = cm.rects(2, 15)
    assert rects[0] == Rect(1, 30.0, 10.0, 120.0, 20.0)
    assert rects[1] == Rect(2, 10.0, 30.0, 40.0, 40.0)
    assert cm.page_at(13) == 2 and cm.page_at(0) == 1
    assert CharMap.from_bytes(cm.to_bytes()) == cm
    assert cm.rects(5, 5) == []


def test_errors_carry_hints_and_cancel_token() -> None:
    err = EncryptedPdfError("secret.pdf is encrypted.")
    assert isinstance(err, FootnoteError) and "password" in err.user_text()
    # a message that ends mid-sentence gets its full stop before the hint
    cut = FootnoteError("Cannot reach the server: Connection refused", hint="Start it.")
    assert cut.user_text() == "Cannot reach the server: Connection refused. Start it."
    assert FootnoteError("Done.", hint="Next.").user_text() == "Done. Next."
    assert FootnoteError("No hint here").user_text() == "No hint here"
    tok = CancelToken()
    tok.raise_if_cancelled()
    tok.cancel()
    with pytest.raises(Cancelled):
        tok.raise_if_cancelled()
    assert Progress("parse", 5, 10).fraction == 0.5
