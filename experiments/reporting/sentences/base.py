"""The entry of one claim of a paper (see :mod:`experiments.reporting.sentences`)."""

from __future__ import annotations

from dataclasses import dataclass

#: the text file of each paper (the project's copies; README "The papers")
PAPER_FILES = {
    "JQPG": "002_f5962da75a0e5c9e.txt",
    "MCEP": "001_cc9270345ac41c8b.txt",
    "MOTTO": "000_558073c9f832546c.txt",
    "HAMLET": "003_63f41ea6f320f0e7.txt",
    "NEXT": "004_9a3161a0bf135193.txt",
}

DIRECTIONS = ("higher", "comparable", "not worse", "grows", "falls", "flat", "linear", "level", "between", "every")


@dataclass(frozen=True)
class Sentence:
    """One claim of a paper: the sentence it comes from and the direction and size read from it."""

    paper: str
    key: str
    where: str
    line: int
    text: str
    direction: str
    size: float | None
    size_from: str
    claim: str
    band: float | None = None  # a level's band (``direction="level"``)

    def __post_init__(self) -> None:
        if self.direction not in DIRECTIONS:
            raise ValueError(f"{self.paper} {self.key}: unknown direction {self.direction!r}")

    @property
    def cited(self) -> str:
        """The row's sentence column: the quote, where it stands and its seed line."""
        return f"\"{self.text}\" ({self.paper} {self.where}; line {self.line})"

    @property
    def reading(self) -> str:
        """The row's direction-and-size column."""
        if self.size is None:
            return f"{self.direction} ({self.size_from})"
        size = f"{self.size:g}" if self.direction in ("grows", "falls", "flat", "linear", "level") else f"{self.size:g}x"
        band = f" within {self.band:g}x" if self.band else ""
        return f"{self.direction}, {size}{band} ({self.size_from})"


def entries(paper: str, rows: list[dict]) -> dict[str, Sentence]:
    """The entries of one paper, keyed; a repeated key is an error (a claim is one entry)."""
    out: dict[str, Sentence] = {}
    for r in rows:
        s = Sentence(paper=paper, **r)
        if s.key in out:
            raise ValueError(f"{paper}: claim {s.key!r} entered twice")
        out[s.key] = s
    return out

