"""The checks Halcyon Air's tasks are built from, bound to a seed's records."""

from __future__ import annotations

from ...verify import checks as C
from .rules import dollars


def res(check_id: str, label: str, r: dict, field: str, value, weight: float = 1.0, **kw) -> C.FieldEquals:
    return C.FieldEquals(id=check_id, label=label, collection="reservations", field=field, value=value,
                         where={"id": r["id"]}, weight=weight, **kw)


def paid_line(check_id: str, r: dict, payment_id: str, amount: int, weight: float = 1.0) -> C.FieldContains:
    what = f"{dollars(amount)} charged to {payment_id}" if amount > 0 else \
        f"{dollars(-amount)} refunded to {payment_id}"
    return C.FieldContains(id=check_id, label=f"Reservation {r['id']}: {what}", collection="reservations",
                           field="payments", value={"payment_id": payment_id, "amount": amount},
                           where={"id": r["id"]}, weight=weight)


def balance(check_id: str, pm: dict, value: int, weight: float = 1.0) -> C.FieldEquals:
    return C.FieldEquals(id=check_id, label=f"{pm['label']} {pm['id']} has {dollars(value)} left",
                         collection="payment_methods", field="balance", value=value, where={"id": pm["id"]},
                         weight=weight)


def said(check_id: str, label: str, value: str, weight: float = 1.0) -> C.OutputContains:
    return C.OutputContains(id=check_id, label=label, value=value, weight=weight)


def unchanged(r: dict, field: str = "status", value=None) -> C.FieldEquals:
    """The reservation the member may not have changed still is as it was (scored even though it starts true)."""
    return res(f"{field.split('.')[0]}-kept", f"Reservation {r['id']} keeps its {field.split('.')[0]}", r, field,
               r[field] if value is None else value, always_scored=True)


def nothing_written() -> C.NoWrites:
    return C.NoWrites(id="no-writes", label="Nothing was changed")


def no_certificate(label: str = "No travel certificate was issued") -> C.NoWrites:
    return C.NoWrites(id="no-certificate", label=label, collection="payment_methods", always_scored=True)


def allow_res(r: dict) -> C.Allow:
    return C.Allow(collection="reservations", ops=["updated"], where={"id": r["id"]})


def allow_flights(*ids: str) -> list:
    return [C.Allow(collection="flights", ops=["updated"], where={"id": fid}) for fid in ids]


def allow_methods(*ids: str) -> list:
    return [C.Allow(collection="payment_methods", ops=["updated"], where={"id": pid}) for pid in ids]


def allow_new(collection: str, member_id: str) -> list:
    """A record created for the member, and the member's own record updated to list it."""
    return [C.Allow(collection=collection, ops=["created"], where={"member_id": member_id}),
            C.Allow(collection="members", ops=["updated"], where={"id": member_id})]


no_collateral = C.no_collateral
