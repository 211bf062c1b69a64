"""Halcyon Air's network: the airports and routes (the same on every seed).

Two hubs, Chicago O'Hare and Denver, and spokes around them, so some city
pairs fly direct and others need one stop. The seed varies the flight
numbers, how many flights a route has a day, their times, seats and prices.
"""

from __future__ import annotations

AIRPORTS = {
    "ATL": ("Hartsfield-Jackson Atlanta International", "Atlanta"),
    "BOS": ("Boston Logan International", "Boston"),
    "DEN": ("Denver International", "Denver"),
    "JFK": ("John F. Kennedy International", "New York"),
    "LAX": ("Los Angeles International", "Los Angeles"),
    "MIA": ("Miami International", "Miami"),
    "ORD": ("Chicago O'Hare International", "Chicago"),
    "PHX": ("Phoenix Sky Harbor International", "Phoenix"),
    "SEA": ("Seattle-Tacoma International", "Seattle"),
    "SFO": ("San Francisco International", "San Francisco"),
}
HUBS = ("ORD", "DEN")

# (a, b, minutes in the air, the economy base fare in dollars): flown both ways.
ROUTES = (
    ("ORD", "BOS", 130, 190), ("ORD", "JFK", 125, 180), ("ORD", "ATL", 115, 170), ("ORD", "MIA", 185, 230),
    ("ORD", "SEA", 260, 280), ("ORD", "SFO", 270, 290), ("ORD", "DEN", 150, 200),
    ("DEN", "SEA", 165, 210), ("DEN", "SFO", 160, 200), ("DEN", "LAX", 150, 190), ("DEN", "PHX", 100, 150),
    ("DEN", "BOS", 235, 270), ("DEN", "ATL", 190, 230), ("LAX", "SFO", 80, 120),
)

FIRST_DAY, DAYS = "2026-06-12", 11  # flights fly every day from 12 to 22 June 2026

FIRST_NAMES = (
    "Amelia", "Benjamin", "Camila", "Daniel", "Elena", "Farid", "Grace", "Hiro", "Isabel", "Jamal", "Kira", "Liam",
    "Maya", "Nikhil", "Olivia", "Pablo", "Quinn", "Rosa", "Samuel", "Tessa", "Umar", "Vera", "Wesley", "Ximena",
    "Yusuf", "Zara", "Adrian", "Bianca", "Connor", "Delia", "Emil", "Fiona", "Gideon", "Hana", "Ivan", "Jolene",
    "Kofi", "Lucia", "Marco", "Nadia", "Oscar", "Priya", "Rafael", "Sana", "Tobias", "Uma", "Victor", "Willa",
)
LAST_NAMES = (
    "Abernathy", "Bergstrom", "Castellano", "Dunmore", "Eriksen", "Fairweather", "Galloway", "Hargreaves",
    "Ishikawa", "Jablonski", "Kensington", "Lindqvist", "Montague", "Nakashima", "Okonjo", "Pemberton", "Quintero",
    "Rosenthal", "Sandoval", "Thornbury", "Underwood", "Valdivia", "Whitcombe", "Yamamoto", "Zielinski",
    "Ashworth", "Blackwood", "Carrington", "Delacroix", "Ellsworth",
)
SONS = ("Benjamin", "Daniel", "Hiro", "Jamal", "Liam", "Nikhil", "Pablo", "Samuel", "Tobias", "Victor", "Oscar",
        "Marco", "Kofi", "Ivan", "Emil", "Rafael")  # al-13's son
# Names whose misspellings are plausible (the look-alike passenger of al-10).
MISSPELT = (
    ("Katharine", "Katherine"), ("Stephen", "Steven"), ("Sofia", "Sophia"), ("Jon", "John"),
    ("Catarina", "Caterina"), ("Mikhail", "Michail"), ("Annalise", "Annelise"), ("Geoffrey", "Jeffrey"),
)
CARD_BRANDS = ("Visa", "Mastercard", "Amex")


def city(code: str) -> str:
    return AIRPORTS[code][1]


def direct(a: str, b: str) -> bool:
    return any({a, b} == {x, y} for x, y, _m, _p in ROUTES)


def route(a: str, b: str) -> tuple:
    return next(r for r in ROUTES if {a, b} == {r[0], r[1]})
