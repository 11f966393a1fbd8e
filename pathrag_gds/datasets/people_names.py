"""The names of the people world: word lists and syllables, and names unique across the world."""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST_F = _words(
    "Ada Alma Amara Anneli Aurora Beatrix Bettina Calla Carys Celeste Clara Dalia Delphine Edda Elin "
    "Elodie Esme Fenna Freya Gisela Greta Hana Hedda Ilse Imke Ines Iris Isolde Jana Jolien Juna Kaja "
    "Karin Laila Leonie Liv Lorna Maren Marit Mira Nadia Nela Nora Odile Olga Petra Philippa Rana "
    "Rhea Romy Runa Sanne Selma Sigrid Solveig Talia Tamsin Thea Tova Ulla Vera Vida Wilma Yara Zora"
)
FIRST_M = _words(
    "Aldo Anders Anselm Arvid Bastian Benedikt Bram Caspar Cato Cyrus Dario Elias Emil Espen Falk "
    "Felix Florian Gero Gideon Hakon Hannes Ivo Jakob Jarno Jonas Joris Kasimir Kilian Lars Lennart "
    "Linus Lorenz Magnus Malte Matthias Milo Nils Noah Oskar Otto Pavel Quentin Rafael Rasmus Rune "
    "Silas Soren Stellan Teodor Tobias Torben Ulrik Valentin Viggo Wendel Xaver Yannick Yorick Zeno"
)
LAST_A = _words(
    "Ash Bel Brand Cor Dal Eber Fal Gar Hal Hol Kes Lind Mar Mor Nor Ost Pell Quen Rav Sal Stein Tal Ved "
    "Wal Wester"
)
LAST_B = _words(
    "brook dale field ford gard holm hurst ley mark mont more quist rick ridge ton vik wood by croft stead"
)
SYL_A = _words("Al Bar Bel Cal Dor El Fen Gal Hav Ist Kal Lor Mar Nev Or Pal Quar Ros Sel Tav Ul Val Wes Zan")
SYL_B = _words("a e i o u ae ia")
SYL_C = _words("bria dor gard hold lan mere mora nor peth rath ren sund tia vale vik well wick")
COUNTRY_END = _words("ia land mark stan onia avia")
COMPANY_END = _words(
    "Systems Labs Works Holdings Logistics Foods Motors Dynamics Analytics Textiles Media Energy "
    "Pharma Robotics Shipping Capital Foundry Optics Mills Instruments"
)
PRODUCT_WORDS = _words(
    "Atlas Beacon Comet Drift Ember Flux Glide Harbor Ion Jade Kite Lumen Mosaic Nimbus Orbit Pulse "
    "Quill Ripple Summit Tide Umbra Vector Willow Zephyr"
)
INDUSTRIES = (
    "banking",
    "shipping",
    "software",
    "agriculture",
    "pharmaceuticals",
    "textiles",
    "energy",
    "publishing",
    "robotics",
    "food processing",
    "telecommunications",
    "aviation",
    "mining",
    "retail",
    "biotechnology",
)


class Names:
    """Unique names across the whole world."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def take(self, make: Iterable[str]) -> str:
        """The first name `make` yields that no entity has yet (it is taken from now on)."""
        for name in make:
            if name not in self.used:
                self.used.add(name)
                return name
        raise RuntimeError("name space exhausted")  # pragma: no cover - the generators are unbounded

    def place(self) -> Iterator[str]:
        """Endless place names of three syllables."""
        r = self.rng
        while True:
            yield r.choice(SYL_A) + r.choice(SYL_B) + r.choice(SYL_C)

    def country(self) -> Iterator[str]:
        """Endless country names (a country ending)."""
        r = self.rng
        while True:
            yield r.choice(SYL_A) + r.choice(SYL_B).rstrip("aeiou") + r.choice(COUNTRY_END)

    def person(self, first: str, last: str) -> Iterator[str]:
        """`first last`, then the same with a middle initial."""
        yield f"{first} {last}"
        r = self.rng
        while True:
            yield f"{first} {r.choice('ABCDEFGHJKLMNPRSTVW')}. {last}"


def last_name(r: random.Random) -> str:
    """A family name of two parts."""
    return r.choice(LAST_A) + r.choice(LAST_B)
