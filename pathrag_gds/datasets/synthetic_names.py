"""Names and descriptions of the generated scale graph's entities, built from their index.

Every (type, index) gets a name no other entity of the graph has: people are a first name and a
made-up surname, cities one made-up word with a town ending, companies and products a made-up word
and a suffix, and so on (a made-up word is the index written in syllables, so it is unique).
Descriptions are one sentence, varied by the index.

Example:
    >>> entity_name("Person", 0), entity_description("Company", 2, "Kobe Group")
    ('Ada Feba', 'Kobe Group is a large company founded in 1976.')
"""

from __future__ import annotations

_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"
_SYLLABLES = [c + v for c in _CONSONANTS for v in _VOWELS]
_FIRST = (
    "Ada Alan Alma Amir Ana Anton Aria Bela Boris Carla Chen Clara Dana David Demi Elif Emil Erin "
    "Eva Farah Felix Gita Hana Hugo Ines Ivan Jana Jonas Kai Kara Lea Leo Lina Luca Maja Malik Mara "
    "Mateo Mila Nadia Nils Noor Olga Omar Pia Rafael Rosa Sami Sara Tariq Tea Theo Uma Vera Yara Yusuf "
    "Zoe Zaid Ilse Oskar"
)
FIRST_NAMES = tuple(_FIRST.split())
COMPANY_SUFFIXES = ("Labs", "Systems", "Group", "Works", "Holdings", "Partners", "Dynamics", "Industries")
CITY_SUFFIXES = ("ville", "burg", "ford", "haven", "stad", "mouth", "dale")
PRODUCT_SUFFIXES = ("Pro", "Max", "One", "Air", "Plus", "Edge", "Prime", "Flex")
EVENT_KINDS = ("Summit", "Conference", "Meetup", "Forum", "Expo", "Symposium")
SKILL_FIELDS = (
    "Statistics",
    "Machine Learning",
    "Accounting",
    "Welding",
    "Marketing",
    "Negotiation",
    "Databases",
    "Cryptography",
    "Logistics",
    "Carpentry",
    "Nursing",
    "Copywriting",
    "Cloud Computing",
    "Robotics",
    "Photography",
    "Tax Law",
    "Supply Chains",
    "Public Speaking",
    "Data Visualisation",
    "Embedded Systems",
    "Graphic Design",
    "Genomics",
    "Electrical Wiring",
    "Project Management",
    "Translation",
    "Plumbing",
    "Sales",
    "Compilers",
    "Network Security",
    "Econometrics",
    "Mobile Apps",
    "User Research",
    "Surveying",
    "Pharmacology",
    "Payroll",
    "Video Editing",
    "Brewing",
    "Structural Engineering",
    "Patent Law",
    "Pottery",
)
SKILL_LEVELS = ("Applied", "Advanced", "Basic", "Modern", "Industrial", "Practical", "Theoretical", "Digital")
INDUSTRIES = (
    "Software",
    "Banking",
    "Insurance",
    "Retail",
    "Healthcare",
    "Pharmaceuticals",
    "Automotive",
    "Aerospace",
    "Energy",
    "Mining",
    "Agriculture",
    "Food Processing",
    "Telecommunications",
    "Media",
    "Publishing",
    "Education",
    "Construction",
    "Real Estate",
    "Logistics Services",
    "Shipping",
    "Airlines",
    "Hospitality",
    "Gaming",
    "Semiconductors",
    "Chemicals",
    "Textiles",
    "Fashion",
    "Consulting",
    "Legal Services",
    "Biotechnology",
    "Robotics Manufacturing",
    "Utilities",
    "Water Supply",
    "Defence",
    "Sports",
    "Furniture",
    "Cosmetics",
    "Toys",
    "Printing",
    "Recycling",
)
ROLES = ("an engineer", "an analyst", "a designer", "a manager", "a nurse", "a teacher", "a researcher")
SIZES = ("small", "mid-sized", "large", "family-owned", "listed", "young")


def _word(i: int, salt: int) -> str:
    """A made-up word, unique for `i` (two or more syllables; `salt` permutes the syllables)."""
    n = len(_SYLLABLES)
    digits = []
    value = i + n  # at least two syllables
    while value:
        value, d = divmod(value, n)
        digits.append(_SYLLABLES[(d * 11 + salt * 13) % n])  # 11 is prime to 70: a bijection
    return "".join(reversed(digits)).capitalize()


def entity_name(label: str, i: int) -> str:
    """The name of the `i`-th entity of a type: unique across the graph for every (label, i).

    Example:
        >>> entity_name("Person", 0), entity_name("City", 3), entity_name("Industry", 1)
        ('Ada Feba', 'Nilehaven', 'Banking')
    """
    if label == "Person":
        return f"{FIRST_NAMES[i % len(FIRST_NAMES)]} {_word(i // len(FIRST_NAMES), 0)}"
    if label == "Company":
        return f"{_word(i // len(COMPANY_SUFFIXES), 1)} {COMPANY_SUFFIXES[i % len(COMPANY_SUFFIXES)]}"
    if label == "City":
        return _word(i // len(CITY_SUFFIXES), 2) + CITY_SUFFIXES[i % len(CITY_SUFFIXES)]
    if label == "Country":
        return f"Republic of {_word(i, 3)}"
    if label == "Product":
        return f"{_word(i // len(PRODUCT_SUFFIXES), 4)} {PRODUCT_SUFFIXES[i % len(PRODUCT_SUFFIXES)]}"
    if label == "Project":
        return f"Project {_word(i, 5)}"
    if label == "Event":
        kind = EVENT_KINDS[i % len(EVENT_KINDS)]
        return f"{_word(i // len(EVENT_KINDS), 6)} {kind} {2000 + (i * 7) % 25}"
    if label == "Skill":
        fields, levels = len(SKILL_FIELDS), len(SKILL_LEVELS)
        fld = SKILL_FIELDS[i % fields]
        if i < fields:
            return fld
        if i < fields * (levels + 1):
            return f"{SKILL_LEVELS[i // fields - 1]} {fld}"
        return f"{_word(i, 7)} {fld}"
    if label == "Industry":
        return INDUSTRIES[i % len(INDUSTRIES)] + ("" if i < len(INDUSTRIES) else f" {i // len(INDUSTRIES)}")
    raise ValueError(f"no entity type {label!r} in the synthetic ontology")


#: Per type: the sentence, the words `{word}` cycles through, and `{n}` = (base + i * step % span) * scale.
_DESCRIPTIONS: dict[str, tuple[str, tuple[str, ...], int, int, int, int]] = {
    "Person": ("{name} is {word} with {n} years of experience.", ROLES, 3, 1, 30, 1),
    "Company": ("{name} is a {word} company founded in {n}.", SIZES, 1950, 13, 74, 1),
    "City": ("{name} is a city of about {n:,} people.", ("",), 5, 37, 995, 1000),
    "Country": ("{name} is a country with {n} regions.", ("",), 4, 1, 40, 1),
    "Product": ("{name} is a product first sold in {n}.", ("",), 1990, 11, 34, 1),
    "Project": ("{name} is a project with a budget of {n} million.", ("",), 1, 7, 90, 1),
    "Event": ("{name} is an event with about {n:,} attendees.", ("",), 1, 3, 200, 50),
    "Skill": ("{name} is a skill in demand since {n}.", ("",), 1960, 17, 60, 1),
    "Industry": ("{name} is an industry with {n} listed companies.", ("",), 10, 29, 500, 1),
}


def entity_description(label: str, i: int, name: str) -> str:
    """A one-sentence description, varied by the entity's index."""
    text, words, base, step, span, scale = _DESCRIPTIONS[label]
    return text.format(name=name, word=words[i % len(words)], n=(base + i * step % span) * scale)
