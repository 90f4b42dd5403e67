"""The papers' claims as data: one entry per claim the report judges, in one module per paper.

Every entry quotes the sentence the paper wrote (as printed; the text-extraction artefacts of the copies
the project works from -- ligatures, line-break hyphens -- repaired), says where it stands (section and
figure) and its *seed line* (the line of the paper's text file the sentence starts at, 1-based, so that a
reader finds it: the files are named in :data:`PAPER_FILES`), and takes from it the claim's direction and
size:

* ``direction`` -- what the effect must do: ``higher`` (a ratio above 1, at least ``size``), ``comparable``
  (within a band ``size``), ``not worse`` (at least 1/``size``), ``grows`` / ``falls`` (a slope of at least
  ``size`` either way), ``flat`` (a slope within +- ``size``), ``linear`` (a slope of 1 +- ``size``),
  ``level`` (a value within a band ``band`` of ``size``), ``between`` (an ordering), ``every`` (``higher``
  at every swept value);
* ``size`` -- the paper's number where it gives one; for its words the stated sizes of the rule set
  (:mod:`experiments.reporting.rules`: GREATLY for "greatly", "considerably", "significantly",
  "substantially", "clear", "convincing", "much"; BEATS for a bare "outperforms", "improves", "better";
  DIRECTION, a direction only, for "slightly" and "in most cases");
* ``size_from`` -- the words of the sentence the size is read from, and any reading chosen.

``claim`` is the report's short name of the claim (the first column of its row).  A sentence that makes
several claims has one entry per claim.  :func:`reading` is the text of the row's direction-and-size
column.  The section modules (:mod:`experiments.reporting.jqpg` and its siblings) fetch their entries
by key, so the text of a claim lives here only.
"""

from __future__ import annotations

from experiments.reporting.sentences import hamlet, jqpg, mcep, motto
from experiments.reporting.sentences import next as next_
from experiments.reporting.sentences.base import DIRECTIONS, PAPER_FILES, Sentence, entries

#: every paper's entries: paper -> key -> entry
SENTENCES = {"JQPG": jqpg.SENTENCES, "MCEP": mcep.SENTENCES, "MOTTO": motto.SENTENCES, "HAMLET": hamlet.SENTENCES,
             "NEXT": next_.SENTENCES}

__all__ = ["DIRECTIONS", "PAPER_FILES", "SENTENCES", "Sentence", "entries"]
