"""Halcyon Air's tasks about passengers: names, dates of birth, how many."""

from __future__ import annotations

from ...verify import checks as C
from ..task import Setup
from . import checks as K
from .cast import facts, hello, one_leg, persona, pick, rng_for, view, where_to
from .network import MISSPELT
from .rules import day_name

RIGHT = {wrong: right for right, wrong in MISSPELT}


def fix_companion_name(store) -> Setup:
    v = view(store)
    fits = []
    for m in v.members.values():
        trips = [r for r in v.of(m) if v.live(r) and one_leg(r)]
        for r in trips:
            twins = [o for o in trips if o["id"] != r["id"] and o["destination"] == r["destination"]]
            comp = r["passengers"][1] if len(r["passengers"]) > 1 else None
            if (len(twins) == 1 and comp and comp["first_name"] in RIGHT and twins[0]["passengers"][1:2] == [comp]
                    and twins[0]["flights"][0]["date"] != r["flights"][0]["date"]):
                fits.append((r, twins[0]))
    r, other = pick(rng_for(store, "al-10"), fits, "two trips to one city with the same misspelt companion")
    m, comp = v.owner(r), r["passengers"][1]
    right = {**comp, "first_name": RIGHT[comp["first_name"]]}
    date = r["flights"][0]["date"]
    reads = [("get_reservation", {"reservation_id": rid}) for rid in m["reservations"]]
    return Setup(
        instruction=(f"{hello(m)} My travel companion's name is misspelt on my {where_to(r)} booking: it should be "
                     f"{right['first_name']} {comp['last_name']}, not {comp['first_name']}. Please fix it."),
        checks=[C.FieldContains(id="name-fixed", label=f"Reservation {r['id']} names {right['first_name']}",
                                collection="reservations", field="passengers", value=right, where={"id": r["id"]},
                                weight=2),
                C.ActionCalled(id="asked-which", label="Asked which of the two trips", action="ask_user"),
                K.no_collateral(K.allow_res(r))],
        solution=[("get_member", {"member_id": m["id"]}), *reads,
                  ("ask_user", {"question": f"You have two trips to {where_to(r)}, on "
                                            f"{day_name(other['flights'][0]['date'])} and {day_name(date)}. Which "
                                            "trip do you mean?"}),
                  ("update_passengers", {"reservation_id": r["id"], "passengers": [r["passengers"][0], right]})],
        output=(f"On reservation {r['id']} (to {where_to(r)} on {day_name(date)}) your companion is now "
                f"{right['first_name']} {comp['last_name']}. Your other trip there, {other['id']}, is unchanged."),
        hidden_facts=facts(m, **{"date, day, when, which, trip, booking, reservation":
                                 f"The trip on {day_name(date)}."}),
        persona=persona(m),
    )


def fix_birth_date(store) -> Setup:
    v = view(store)
    fits = [r for r in v.reservations.values() if v.live(r) and len(r["passengers"]) >= 2]
    rng = rng_for(store, "al-17")
    r = pick(rng, fits, "live trip with a companion")
    m = v.owner(r)
    i = rng.randrange(1, len(r["passengers"]))
    p = r["passengers"][i]
    year = int(p["date_of_birth"][:4]) + rng.choice((-2, -1, 1, 2))
    fixed = {**p, "date_of_birth": f"{year}{p['date_of_birth'][4:]}"}
    people = [fixed if j == i else q for j, q in enumerate(r["passengers"])]
    return Setup(
        instruction=(f"{hello(m)} On my reservation {r['id']}, {p['first_name']} {p['last_name']}'s date of birth "
                     f"is wrong: it should be {day_name(fixed['date_of_birth']).split(' ', 1)[1]} {year}. Please "
                     "correct it."),
        checks=[C.FieldContains(id="birth-fixed", label=f"{p['first_name']} was born on {fixed['date_of_birth']}",
                                collection="reservations", field="passengers", value=fixed, where={"id": r["id"]},
                                weight=2),
                K.no_collateral(K.allow_res(r))],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]}),
                  ("update_passengers", {"reservation_id": r["id"], "passengers": people})],
        output=(f"Corrected {p['first_name']} {p['last_name']}'s date of birth on reservation {r['id']} to "
                f"{fixed['date_of_birth']}."),
        hidden_facts=facts(m), persona=persona(m),
    )


def refuse_added_passenger(store) -> Setup:
    v = view(store)
    rng = rng_for(store, "al-24")
    fits = [r for r in v.reservations.values() if v.flying(r) and len(r["passengers"]) == 1]
    r = pick(rng, fits, "live trip with one passenger")
    m = v.owner(r)
    partner = f"{rng.choice(('Alex', 'Robin', 'Jamie', 'Morgan', 'Sasha'))} {m['last_name']}"
    return Setup(
        instruction=(f"{hello(m)} Please add my partner {partner} to my reservation {r['id']} to {where_to(r)} so we "
                     "fly together on the same booking."),
        checks=[K.said("told-why", "The answer explains the passengers of a reservation cannot be added to",
                       "passenger", weight=1),
                K.unchanged(r, "passengers"), K.nothing_written(), K.no_collateral()],
        solution=[("get_member", {"member_id": m["id"]}), ("get_reservation", {"reservation_id": r["id"]})],
        output=(f"I can't add {partner} to reservation {r['id']}: the number of passengers on a reservation cannot "
                "change. I can book a new reservation for them on the same flights if you like."),
        hidden_facts=facts(m), persona=persona(m),
    )
