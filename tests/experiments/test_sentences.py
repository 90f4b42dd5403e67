"""The papers' claims as data (experiments/reporting/sentences/): every entry is well formed, and -- where the
papers' text files are at hand (``CEP_PAPERS_DIR``, default the specification's folder) -- its quote is the
paper's sentence, starting at its seed line."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from experiments.reporting.sentences import DIRECTIONS, PAPER_FILES, SENTENCES

PAPERS = Path(os.environ.get("CEP_PAPERS_DIR", "/work/shared/papers"))
LIGATURES = ("ffi", "ffl", "ff", "fi", "fl")
#: lines a sentence may run across in the text files: a figure's panel letters and caption, a page number
INTERRUPTIONS = re.compile(r"^\s*(\([a-z]\)|(Figure|Fig\.) \d+:.*|\d{3,4})\s*$")


def _letters(text: str) -> str:
    """Lower-case ASCII letters and digits only (a Greek letter or a math symbol may be lost in extraction),
    and the extraction's replacement character (a lost ligature)."""
    return "".join(ch for ch in text.lower() if (ch.isascii() and ch.isalnum()) or ch == "\ufffd")


def _pattern(quote: str) -> re.Pattern:
    """The quote as a pattern over :func:`_letters`: a ligature may have been extracted as the replacement
    character (its first letter kept, or not), and a math symbol may be lost."""
    q = _letters(quote.replace(">=", ""))
    parts, i = [], 0
    while i < len(q):
        lig = next((l for l in LIGATURES if q.startswith(l, i)), None)
        if lig:
            parts.append(f"(?:{lig}|{lig[0]}\ufffd|\ufffd)")
            i += len(lig)
        else:
            parts.append(re.escape(q[i]))
            i += 1
    return re.compile("".join(parts))


def test_every_entry_is_well_formed():
    for paper, entries in SENTENCES.items():
        assert paper in PAPER_FILES
        for key, s in entries.items():
            assert s.key == key and s.paper == paper
            assert s.direction in DIRECTIONS
            assert s.line > 0 and s.text.strip() and s.claim.strip() and s.size_from.strip()
            assert s.size is None or s.size > 0
            assert s.cited.startswith('"') and f"line {s.line}" in s.cited


@pytest.mark.skipif(not PAPERS.is_dir(), reason=f"the papers' text files are not at {PAPERS}")
@pytest.mark.parametrize("paper", sorted(PAPER_FILES))
def test_every_quote_starts_at_its_seed_line(paper):
    lines = (PAPERS / PAPER_FILES[paper]).read_text(encoding="utf-8", errors="replace").splitlines()
    for s in SENTENCES[paper].values():
        before = _letters(" ".join(lines[: s.line - 1]))
        at = _letters(lines[s.line - 1])
        after = [ln for ln in lines[s.line:] if not INTERRUPTIONS.match(ln)]
        text = before + at + _letters(" ".join(after))
        found = [m.start() for m in _pattern(s.text).finditer(text)]
        assert found, f"{paper} {s.key}: the quote is not in the paper"
        assert any(len(before) <= i < len(before) + len(at) for i in found), \
            f"{paper} {s.key}: the quote does not start at line {s.line}"
