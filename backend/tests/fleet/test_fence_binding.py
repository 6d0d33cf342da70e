"""Binding vehicles to a fence with the bind kind: bound and unbound pages with the vehicle filters, bind and
unbind all or none, the other side read through its own scope, the terminals told."""

from __future__ import annotations

from typing import Any

from tests.conftest import Api, own_organisation_user, seed_ids
from tests.resources.actions_fleet import FENCES, vehicle
from tests.resources.data import CASES as RESOURCE_CASES

FENCE = "/api/liftdesk/fence"
CMD = "/api/liftdesk/command"


async def new_fence(api: Api) -> dict[str, Any]:
    r = await api.post(f"{FENCES}/v2/addCarElectronicsSet", json=await RESOURCE_CASES["fence"].create(api, "000000"))
    assert r["code"] == 200, r
    data: dict[str, Any] = r["data"]
    return data


async def numbers(api: Api, path: str, fence: str, **params: Any) -> list[str]:
    r = await api.get(f"{FENCE}/{path}", params={"fenceId": fence, "size": 100, **params})
    assert r["code"] == 200, r
    return [row["carNo"] for row in r["data"]["records"]]


async def test_bind_lists_and_unbind(api: Api) -> None:
    fence = await new_fence(api)
    a, b = await vehicle(api, "000000"), await vehicle(api, "000000")
    assert a["carNo"] not in await numbers(api, "boundCars", fence["id"])
    assert a["carNo"] in await numbers(api, "unboundCars", fence["id"], carNo=a["carNo"])

    done = await api.post(f"{FENCE}/bindCars", json={"fenceId": fence["id"], "carIds": [a["id"], b["id"]]})
    assert done["code"] == 200 and done["data"] == 2, done
    assert sorted(await numbers(api, "boundCars", fence["id"])) == sorted([a["carNo"], b["carNo"]])
    # the vehicle list's own filters apply to the bound page
    assert await numbers(api, "boundCars", fence["id"], carNo=b["carNo"]) == [b["carNo"]]
    assert a["carNo"] not in await numbers(api, "unboundCars", fence["id"], carNo=a["carNo"])
    again = await api.post(f"{FENCE}/bindCars", json={"fenceId": fence["id"], "carIds": [a["id"]]})
    assert again["data"] == 0, "binding twice adds nothing"
    # the fence's own detail shows them, and each terminal got the area (queued: not connected)
    detail = (await api.get(f"{FENCES}/V2/getCarElectronicsInfo", params={"id": fence["id"]}))["data"]
    assert sorted(detail["carIds"]) == sorted([a["id"], b["id"]])
    sent = (await api.get(f"{CMD}/list", params={"vehicleId": a["id"], "size": 50}))["data"]["records"]
    areas = [c for c in sent if c["msgId"] == 0x8600]
    assert [(c["name"], c["status"]) for c in areas] == [("set_circle_areas", "pending")], sent
    assert [area["id"] for area in areas[0]["payload"]["areas"]] == [int(detail["areaId"])]

    gone = await api.post(f"{FENCE}/unbindCars", json={"fenceId": fence["id"], "carIds": [a["id"]]})
    assert gone["code"] == 200 and gone["data"] == 1
    assert await numbers(api, "boundCars", fence["id"]) == [b["carNo"]]
    # the unbound vehicle's terminal is told to drop the area, once; the one still bound is not
    dropped = [
        c["payload"]
        for c in (await api.get(f"{CMD}/list", params={"vehicleId": a["id"], "size": 50}))["data"]["records"]
        if c["msgId"] == 0x8601
    ]
    assert dropped == [{"ids": [int(detail["areaId"])]}]
    kept = (await api.get(f"{CMD}/list", params={"vehicleId": b["id"], "size": 50}))["data"]["records"]
    assert not [c for c in kept if c["msgId"] == 0x8601]


async def test_bad_selections_change_nothing(api: Api) -> None:
    fence = await new_fence(api)
    a = await vehicle(api, "000000")
    unknown = await api.post(f"{FENCE}/bindCars", json={"fenceId": fence["id"], "carIds": [a["id"], "1"]})
    assert unknown["code"] == 400 and "carIds" in unknown["msg"]
    empty = await api.post(f"{FENCE}/bindCars", json={"fenceId": fence["id"], "carIds": []})
    assert empty["code"] == 400 and "carIds" in empty["msg"]
    no_fence = await api.post(f"{FENCE}/bindCars", json={"fenceId": "1", "carIds": [a["id"]]})
    assert no_fence["code"] == 400
    assert await numbers(api, "boundCars", fence["id"]) == [], "nothing was bound"


async def test_vehicles_outside_the_data_scope_cannot_be_bound(api: Api) -> None:
    ids = await seed_ids(api)
    fence = await new_fence(api)
    outside = await api.post(
        f"{FENCES}/insertCarInfo",
        json={"carNo": api.unique("OUT-"), "carType": 4, "mechanismId": ids["dept"]},
    )
    assert outside["code"] == 200, outside
    async with own_organisation_user(api, ids["child_dept"], buttons=("fence", "fence_edit")) as who:
        inside = await api.post(
            f"{FENCES}/insertCarInfo", json={"carNo": api.unique("IN-"), "carType": 4, "mechanismId": ids["child_dept"]}
        )
        assert inside["code"] == 200, inside
        theirs = await api.post(
            f"{FENCE}/bindCars", json={"fenceId": fence["id"], "carIds": [outside["data"]["id"]]}, **who
        )
        assert theirs["code"] == 400, theirs
        unbound = await api.get(f"{FENCE}/unboundCars", params={"fenceId": fence["id"], "size": 200}, **who)
        seen = {r["id"] for r in unbound["data"]["records"]}
        assert outside["data"]["id"] not in seen and inside["data"]["id"] in seen
        mine = await api.post(
            f"{FENCE}/bindCars", json={"fenceId": fence["id"], "carIds": [inside["data"]["id"]]}, **who
        )
        assert mine["code"] == 200 and mine["data"] == 1, mine
