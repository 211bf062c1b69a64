"""Nordlys Analytics AS: the people, channels, rooms and mail addresses.

These are the same on every seed (the quickstart of reference 001 names
them); what the seed varies lives in ``state.py``. Ids are fixed strings that
are never a substring of one another (``U_MARI`` has no ``U_MARIA``), because
checks match strings as substrings.
"""

from __future__ import annotations

from dataclasses import dataclass

DOMAIN = "nordlys.no"
COMPANY = "Nordlys Analytics AS"


@dataclass(frozen=True)
class Person:
    uid: str  # Slack user id
    first: str
    last: str
    title: str
    leader: bool = False

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def email(self) -> str:
        return f"{self.first.lower()}@{DOMAIN}"

    @property
    def handle(self) -> str:
        return f"{self.first.lower()}.{self.last.lower()}"


# The six leaders, in the order the offsite thread lists them.
INGRID = Person("U_INGRID", "Ingrid", "Solberg", "CEO", True)
ERIK = Person("U_ERIK", "Erik", "Lund", "CTO", True)
MARI = Person("U_MARI", "Mari", "Haugen", "COO", True)
ANDERS = Person("U_ANDERS", "Anders", "Berg", "CFO", True)
SOFIE = Person("U_SOFIE", "Sofie", "Nilsen", "Head of Sales", True)
JONAS = Person("U_JONAS", "Jonas", "Dahl", "Head of Product", True)
LEADERS = (INGRID, ERIK, MARI, ANDERS, SOFIE, JONAS)

LARS = Person("U_LARS", "Lars", "Eriksen", "Senior Backend Engineer")
KARI = Person("U_KARI", "Kari", "Strand", "Backend Engineer")
MAGNUS = Person("U_MAGNUS", "Magnus", "Aas", "IT and Platform Engineer")
NORA = Person("U_NORA", "Nora", "Bakke", "Product Designer")
HENRIK = Person("U_HENRIK", "Henrik", "Moe", "Data Scientist")
OLA = Person("U_OLA", "Ola", "Johansen", "Account Executive")
THEA = Person("U_THEA", "Thea", "Lie", "Customer Success Manager")
SILJE = Person("U_SILJE", "Silje", "Holm", "Office and People Manager")
STAFF = (LARS, KARI, MAGNUS, NORA, HENRIK, OLA, THEA, SILJE)
ENGINEERS = (LARS, KARI, MAGNUS, HENRIK)

ASSISTANT = Person("U_ASSIST", "Nordlys", "Assistant", "Operations assistant (AI)")
ASSISTANT_EMAIL = f"assistant@{DOMAIN}"
PEOPLE = LEADERS + STAFF  # the fourteen people of the company
BY_UID = {p.uid: p for p in PEOPLE + (ASSISTANT,)}
BY_EMAIL = {p.email: p for p in PEOPLE}
BY_EMAIL[ASSISTANT_EMAIL] = ASSISTANT


@dataclass(frozen=True)
class Room:
    name: str
    email: str  # its resource calendar's id
    capacity: int


FJELLET = Room("Fjellet", "c_fjellet@resource.calendar.google.com", 4)
FJORDEN = Room("Fjorden", "c_fjorden@resource.calendar.google.com", 10)
ROOMS = (FJELLET, FJORDEN)  # in order of preference for a small meeting


@dataclass(frozen=True)
class Channel:
    id: str
    name: str
    private: bool
    topic: str
    purpose: str
    members: tuple  # user ids


_ALL = tuple(p.uid for p in PEOPLE) + (ASSISTANT.uid,)
LEADERSHIP = Channel(
    "C_LEADERSHIP", "leadership", True, "Leadership team: decisions, planning, offsites",
    "Private channel for the six leaders of Nordlys.", tuple(p.uid for p in LEADERS) + (ASSISTANT.uid,),
)
GENERAL = Channel("C_GENERAL", "general", False, "Company-wide announcements",
                  "Announcements for everyone at Nordlys.", _ALL)
ENGINEERING = Channel(
    "C_ENGINEERING", "engineering", False, "Deploys, incidents, laptops",
    "Engineering and IT.", (ERIK.uid, JONAS.uid) + tuple(p.uid for p in ENGINEERS) + (NORA.uid, ASSISTANT.uid),
)
RANDOM = Channel("C_RANDOM", "random", False, "Lunch, cake, dogs", "Everything that is not work.", _ALL)
CHANNELS = (LEADERSHIP, GENERAL, ENGINEERING, RANDOM)
CHANNEL_BY_ID = {c.id: c for c in CHANNELS}

# Outsiders who write to the assistant's mailbox.
VENUE = ("Fjordhuset Konferanse", "booking@fjordhuset.no")
