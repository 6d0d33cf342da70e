"""The vehicle register to and from spreadsheets: template, import with a per-row report, cover or not, a large
file in the background with its progress, export with the list's filters."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from openpyxl import Workbook, load_workbook

from tests.conftest import Api

F = "/api/blade-fics-report/fics/carInfo"


def xlsx(rows: list[list[Any]]) -> bytes:
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def table(data: bytes) -> list[list[Any]]:
    sheet = load_workbook(io.BytesIO(data), read_only=True).worksheets[0]
    return [list(r) for r in sheet.iter_rows(values_only=True)]


async def upload(api: Api, data: bytes, name: str = "cars.xlsx", covered: int = 0, **kw: Any) -> dict[str, Any]:
    return await api.post(
        f"{F}/importCar", params={"isCovered": covered}, files={"file": (name, data, "application/octet-stream")}, **kw
    )


async def test_template_import_report_and_cover(api: Api) -> None:
    headers = await api.headers()
    template = await api.client.get(f"{F}/exportCarTemplate", headers=headers)
    assert template.status_code == 200 and template.headers["content-type"].startswith("application/vnd.openxml")
    [header] = table(template.content)
    assert header[:4] == ["车辆编号", "终端设备号", "SIM卡号", "车辆类型"]
    english = await api.client.get(f"{F}/exportCarTemplate", headers={**headers, "Accept-Language": "en"})
    assert table(english.content)[0][0] == "Vehicle number"

    a, b, bad = api.unique("IMP-"), api.unique("IMP-"), api.unique("IMP-")
    rows = [
        [*header[:5], "额定载重(kg)"],
        [a, None, None, 4, 0, 2500],
        [],  # an empty row is skipped, not an error
        [bad, None, None, 99, 0, 1000],  # vehicle type out of range
        [b, None, None, 3, 1, -5],  # a negative rated load is refused, not clamped
        ["", None, None, 3, 0, None],  # no number
    ]
    report = (await upload(api, xlsx(rows)))["data"]
    assert report["total"] == 4 and report["created"] == 1 and report["failed"] == 3 and report["finished"]
    by_row = {e["row"]: e["message"] for e in report["errors"]}
    assert set(by_row) == {4, 5, 6}, by_row
    assert "carType" in by_row[4] and "ratedLoadKg" in by_row[5] and "carNo" in by_row[6]
    found = (await api.get(f"{F}/page", params={"carNo": a}))["data"]["records"]
    assert [(r["carNo"], r["carType"], r["ratedLoadKg"]) for r in found] == [(a, 4, 2500)]
    assert not (await api.get(f"{F}/page", params={"carNo": bad}))["data"]["records"]

    # the same number again: reported unless covering, then updated
    again = (await upload(api, xlsx([["车辆编号", "车辆类型"], [a, 5]])))["data"]
    assert again["created"] == 0 and again["failed"] == 1 and a in again["errors"][0]["message"]
    covered = (await upload(api, xlsx([["Vehicle number", "Vehicle type"], [a, 5]]), covered=1))["data"]
    assert covered["updated"] == 1 and covered["failed"] == 0
    [row] = (await api.get(f"{F}/page", params={"carNo": a}))["data"]["records"]
    assert row["carType"] == 5 and row["ratedLoadKg"] == 2500, "a covered row changes only the columns given"


async def test_files_other_than_spreadsheets_are_refused(api: Api) -> None:
    csv = await upload(api, b"carNo\nX-1\n", name="cars.csv")
    assert csv["code"] == 400 and ".xlsx" in csv["msg"]
    broken = await upload(api, b"PK not really a workbook", name="cars.xlsx")
    assert broken["code"] == 400 and "模板" in broken["msg"]
    wrong = await upload(api, xlsx([["what", "ever"], [1, 2]]))
    assert wrong["code"] == 400 and "车辆编号" in wrong["msg"]


async def test_a_large_file_goes_on_in_the_background(api: Api) -> None:
    prefix = api.unique("BULK-")
    rows: list[list[Any]] = [["车辆编号", "车辆类型"]] + [[f"{prefix}-{i}", 3] for i in range(230)]
    started = (await upload(api, xlsx(rows)))["data"]
    assert started["total"] == 230 and started["jobId"]
    report = started
    for _ in range(300):
        report = (await api.get(f"{F}/getCarByImport", params={"jobId": started["jobId"]}))["data"]
        if report["finished"]:
            break
        await asyncio.sleep(0.1)
    assert report["finished"] and report["created"] == 230 and report["done"] == 230, report
    page = (await api.get(f"{F}/page", params={"carNo": prefix, "size": 1}))["data"]
    assert page["total"] == 230


async def test_export_follows_the_list_filters(api: Api) -> None:
    prefix = api.unique("EXP-")
    for i in range(3):
        r = await api.post(f"{F}/insertCarInfo", json={"carNo": f"{prefix}{i}", "carType": 4, "ratedLoadKg": 1500})
        assert r["code"] == 200, r
    headers = await api.headers()
    answer = await api.client.get(f"{F}/exportCar", params={"carNo": prefix}, headers=headers)
    assert answer.status_code == 200 and "attachment" in answer.headers["content-disposition"]
    rows = table(answer.content)
    assert rows[0][0] == "车辆编号" and "车辆类型名称" in rows[0]
    numbers = sorted(r[0] for r in rows[1:])
    assert numbers == [f"{prefix}{i}" for i in range(3)]
    type_name = rows[1][rows[0].index("车辆类型名称")]
    assert type_name and type_name != "4", "the export names the type, beside its key"
