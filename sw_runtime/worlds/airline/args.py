"""The typed arguments of Halcyon Air's tools: what the agent sees as JSON
Schema is what decodes its calls."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta

from . import rules

AirportCode = Annotated[str, Meta(pattern=r"^[A-Z]{3}$", description="A three-letter airport code, e.g. DEN.")]
Date = Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$", description="A date, YYYY-MM-DD.")]
MemberId = Annotated[str, Meta(min_length=1, max_length=20, description="A member id, e.g. mb-4821.")]
ReservationId = Annotated[str, Meta(min_length=1, max_length=20,
                                    description="A reservation id (record locator), e.g. K7QX2M.")]
FlightId = Annotated[str, Meta(min_length=1, max_length=30, description=(
    "A flight by number and date, e.g. HA0412-2026-06-18 (the id that the searches and get_flight_status "
    "answer)."))]
Cabin = Annotated[Literal[rules.CABINS], Meta(description="economy or business.")]  # type: ignore[valid-type]
FareId = Annotated[Literal[tuple(rules.FARES)],  # type: ignore[valid-type]
                   Meta(description="The fare class: saver, standard or flex (list_fares gives their rules).")]


class NoArgs(msgspec.Struct, forbid_unknown_fields=True):
    """A tool that takes no arguments."""


class SearchArgs(msgspec.Struct, forbid_unknown_fields=True):
    origin: AirportCode
    destination: AirportCode
    date: Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$", description="The day of departure, YYYY-MM-DD.")]


class StatusArgs(msgspec.Struct, forbid_unknown_fields=True):
    flight_number: Annotated[str, Meta(pattern=r"^HA\d{4}$", description="The flight number, e.g. HA0412.")]
    date: Date


class MemberRef(msgspec.Struct, forbid_unknown_fields=True):
    member_id: MemberId


class ReservationRef(msgspec.Struct, forbid_unknown_fields=True):
    reservation_id: ReservationId


class Passenger(msgspec.Struct, forbid_unknown_fields=True):
    """A traveller, named as on their ID."""

    first_name: Annotated[str, Meta(min_length=1, max_length=60, description="Given name, as on the ID.")]
    last_name: Annotated[str, Meta(min_length=1, max_length=60, description="Family name, as on the ID.")]
    date_of_birth: Annotated[str, Meta(pattern=r"^\d{4}-\d\d-\d\d$", description="YYYY-MM-DD.")]


class PaymentPart(msgspec.Struct, forbid_unknown_fields=True):
    """One payment method and the amount it pays."""

    payment_id: Annotated[str, Meta(min_length=1, max_length=20, description=(
        "One of the member's payment methods, e.g. pm-4410 (get_member lists them)."))]
    amount: Annotated[int, Meta(gt=0, le=10_000_000, description="Integer cents: 12550 means $125.50.")]


Payments = Annotated[list[PaymentPart], Meta(max_length=4, description=(
    "Who pays what is due, adding up to it exactly: an empty list when nothing is due. A refund needs no "
    "payments: it goes back to the reservation's original payment method."))]


class BookArgs(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    member_id: MemberId
    origin: AirportCode
    destination: AirportCode
    trip_type: Annotated[Literal["one_way", "round_trip"], Meta(description="one_way, or round_trip (there and back).")]
    flights: Annotated[list[FlightId], Meta(min_length=1, max_length=6, description=(
        "Every flight of the trip, in the order flown (a one-stop trip has two each way)."))]
    cabin: Cabin
    fare: FareId
    passengers: Annotated[list[Passenger], Meta(min_length=1, max_length=9, description="Everyone travelling.")]
    bags: Annotated[int, Meta(ge=0, le=45, description="Checked bags in all, for every passenger together.")] = 0
    insurance: Annotated[bool, Meta(description="Travel insurance, $30.00 per passenger.")] = False
    payments: Payments


class ChangeFlightsArgs(msgspec.Struct, forbid_unknown_fields=True):
    reservation_id: ReservationId
    flights: Annotated[list[FlightId], Meta(min_length=1, max_length=6, description=(
        "Every flight of the trip after the change, in the order flown: the ones kept and the new ones."))]
    payments: Payments = []


class ChangeCabinArgs(msgspec.Struct, forbid_unknown_fields=True):
    reservation_id: ReservationId
    cabin: Cabin
    payments: Payments = []


class PassengersArgs(msgspec.Struct, forbid_unknown_fields=True):
    reservation_id: ReservationId
    passengers: Annotated[list[Passenger], Meta(min_length=1, max_length=9, description=(
        "Every passenger after the change, as many as before, in the same order."))]


class BagsArgs(msgspec.Struct, forbid_unknown_fields=True):
    reservation_id: ReservationId
    bags: Annotated[int, Meta(ge=0, le=45, description="Checked bags in all after the change (never fewer).")]
    payments: Payments = []


class CancelArgs(msgspec.Struct, forbid_unknown_fields=True):
    reservation_id: ReservationId
    reason: Annotated[Literal[rules.REASONS], Meta(description=(  # type: ignore[valid-type]
        "Why: change_of_plans, airline_cancelled (a flight of it was cancelled by us), health, family_emergency "
        "or other. Give the true reason."))]


class CertificateArgs(msgspec.Struct, forbid_unknown_fields=True):
    member_id: MemberId
    reservation_id: ReservationId
    flight_id: Annotated[str, Meta(min_length=1, max_length=30, description="The delayed or cancelled flight's id.")]
    amount: Annotated[int, Meta(gt=0, le=100_000, description="Integer cents, as the policy sets it.")]


class TransferArgs(msgspec.Struct, forbid_unknown_fields=True):
    member_id: MemberId
    summary: Annotated[str, Meta(min_length=10, max_length=1000, description=(
        "What the member wants and why you could not do it, for the human agent."))]
