"""Code generation (/api/blade-develop/code) and the report designer's list (/api/blade-report/report/rest).

The round trip is the heart: a generated zip, unzipped into a scratch copy of the project, registers its resource,
migrates its table and passes the generic suite there (run in a subprocess on that copy)."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

from sqlalchemy import select

import liftdesk
from liftdesk.system.codegen import generate as gen
from liftdesk.system.codegen.models import ReportFile
from liftdesk.system.codegen.resources import migration_heads
from liftdesk.system.codegen.schemas import CodeIn
from tests.conftest import BASIC, Api, Tenants

CODE = "/api/blade-develop/code"
REPORT = "/api/blade-report/report/rest"
REPO = Path(liftdesk.__file__).resolve().parents[2]


def record(api: Api, package: str | None = None, **over: Any) -> dict[str, Any]:
    name = package or api.unique("sample_").lower()
    return {
        "codeName": "样品",
        "serviceName": "blade-sample",
        "tableName": f"smp_{name}",
        "tablePrefix": "smp_",
        "entityName": "SampleWidget",
        "packageName": name,
        "fields": [
            {"column": "widget_name", "name": "名称", "required": True, "maxLength": 40, "inSearch": True},
            {"column": "serial_no", "name": "序列号", "maxLength": 32},
            {"column": "weight", "name": "重量", "type": "double"},
            {"column": "stock", "name": "库存", "type": "int", "dictCode": "car_status"},
            {"column": "counted", "name": "总数", "type": "long", "required": True},
            {"column": "made_at", "name": "出厂时间", "type": "datetime"},
            {"column": "note", "name": "备注", "type": "text", "inList": False},
        ],
        **over,
    }


def files_of(body: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        return {n: archive.read(n).decode() for n in archive.namelist()}


async def test_gen_code_answers_a_zip_of_the_four_files(api: Api) -> None:
    saved = await api.post(f"{CODE}/submit", json=record(api))
    assert saved["code"] == 200, saved
    row = saved["data"]
    headers = await api.headers()
    r = await api.client.post(f"{CODE}/gen-code", params={"ids": row["id"], "system": "saber"}, headers=headers)
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    assert f'filename="{row["packageName"]}-' in r.headers["content-disposition"]
    files = files_of(r.content)
    package, table = row["packageName"], row["tableName"]
    expected = gen.generate(CodeIn.model_validate(row), int(row["id"]), migration_heads())
    assert files == {f.path: f.text for f in expected}
    assert sorted(files) == sorted(
        [
            f"backend/liftdesk/generated/{package}.py",
            f"backend/liftdesk/generated/{package}_schemas.py",
            f"backend/liftdesk/migrations/versions/{gen.revision_of(table)}.py",
            f"frontend/src/resources/generated/{gen.web_name_of(package)}.ts",
        ]
    )
    declaration = files[f"backend/liftdesk/generated/{package}.py"]
    assert 'prefix="/api/blade-sample/' in declaration and f'__tablename__ = "{table}"' in declaration
    # two records: one zip, the second migration following the first
    other = (await api.post(f"{CODE}/submit", json=record(api)))["data"]
    both = await api.client.post(f"{CODE}/gen-code", params={"ids": f"{row['id']},{other['id']}"}, headers=headers)
    migrations = [t for n, t in files_of(both.content).items() if "/migrations/" in n]
    assert len(files_of(both.content)) == 8 and any(f"'{gen.revision_of(table)}'" in t for t in migrations)


async def test_bad_records_are_refused_naming_the_field(api: Api) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"tableName": "blade_post", "tablePrefix": None}, "blade_post"),
        ({"tableName": "smp-bad"}, "tableName"),
        ({"entityName": "sample"}, "entityName"),
        ({"entityName": "Base"}, "Base"),
        ({"packageName": "post"}, "packageName"),
        ({"packageName": "class"}, "class"),
        ({"tablePrefix": "abc_"}, "tablePrefix"),
        ({"fields": [{"column": "widget_name", "name": "名称", "type": "blob"}]}, "type"),
        ({"fields": [{"column": "tenant_id", "name": "租户"}]}, "tenant_id"),
        ({"fields": [{"column": "a", "name": "A"}, {"column": "a", "name": "B"}]}, "a"),
        ({"fields": [{"column": "n", "name": "N", "type": "int"}]}, "string"),
        ({"fields": []}, "fields"),
        ({"codeName": 'bad "name"'}, "codeName"),
    ]
    for change, named in cases:
        r = await api.post(f"{CODE}/submit", json=record(api, **change))
        assert r["_status"] == 400 and r["code"] == 400 and named in r["msg"], (change, r)
    en = await api.post(
        f"{CODE}/submit", json=record(api, tableName="blade_post", tablePrefix=None), headers={"Accept-Language": "en"}
    )
    assert en["code"] == 400 and en["msg"] == "tableName: the table blade_post already exists"
    none = await api.post(f"{CODE}/gen-code", params={"ids": ""})
    assert none["code"] == 400 and none["_status"] == 400


async def test_copy_makes_a_new_record(api: Api) -> None:
    row = (await api.post(f"{CODE}/submit", json=record(api)))["data"]
    r = await api.post(f"{CODE}/copy", params={"id": row["id"]})
    assert r["code"] == 200, r
    copy = r["data"]
    assert copy["id"] != row["id"] and copy["codeName"] == "样品-副本"
    assert copy["fields"] == row["fields"] and copy["tableName"] == row["tableName"]
    assert (await api.get(f"{CODE}/detail", params={"id": copy["id"]}))["data"]["packageName"] == row["packageName"]
    gone = await api.post(f"{CODE}/copy", params={"id": "1"})
    assert gone["code"] == 400


async def test_only_the_platform_administrator_generates(api: Api, tenants: Tenants) -> None:
    row = (await api.post(f"{CODE}/submit", json=record(api)))["data"]
    b = {"tenant": tenants.b}
    for path, params in (("gen-code", {"ids": row["id"]}), ("copy", {"id": row["id"]})):
        r = await api.post(f"{CODE}/{path}", params=params, **b)
        assert r["_status"] == 403 and r["code"] == 403, r
        anonymous = await api.client.post(f"{CODE}/{path}", params=params, headers={"Authorization": BASIC})
        assert anonymous.status_code == 401
    listed = await api.get(f"{CODE}/list", **b)
    assert listed["_status"] == 403


async def test_report_definitions_are_listed_and_removed(api: Api, tenants: Tenants) -> None:
    name = api.unique("报表 ")
    async with api.db.sessionmaker() as s:
        report = ReportFile(name=name, content="<ureport/>")
        s.add(report)
        await s.commit()
        ident = str(report.id)
    page = await api.get(f"{REPORT}/list", params={"name": name[1:-1]})
    assert page["code"] == 200 and [r["id"] for r in page["data"]["records"]] == [ident]
    assert page["data"]["records"][0]["name"] == name
    shown = await api.get(f"{REPORT}/detail", params={"id": ident})
    assert shown["data"]["content"] == "<ureport/>"
    assert (await api.get(f"{REPORT}/detail", params={"id": ident}, tenant=tenants.b))["_status"] == 403
    refused = await api.post(f"{REPORT}/remove", params={"ids": ident}, tenant=tenants.b)
    assert refused["_status"] == 403
    assert (await api.get(f"{REPORT}/list", tenant=tenants.b))["_status"] == 403
    assert (await api.post(f"{REPORT}/remove", params={"ids": ident}))["data"] is True
    assert not (await api.get(f"{REPORT}/list", params={"name": name}))["data"]["records"]
    async with api.db.sessionmaker() as s:
        deleted = (await s.execute(select(ReportFile.is_deleted).where(ReportFile.id == int(ident)))).scalar_one()
    assert deleted == 1


def test_a_generated_zip_passes_the_generic_suite_in_a_scratch_copy(tmp_path: Path) -> None:
    """Unzipped into a copy of the project, the generated resource registers, migrates and passes the generic API
    suite (create, detail, update, remove, filters, paging, 401, 403, another tenant) on SQLite and PostgreSQL."""
    package = "scratch_widget"
    code = CodeIn.model_validate(record(Api.__new__(Api), package=package))
    body = gen.zip_of(gen.generate(code, 1, migration_heads()))
    root = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".mypy_cache", ".ruff_cache", "var")
    shutil.copytree(REPO / "backend", root / "backend", ignore=ignore)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        archive.extractall(root)
    env = {**os.environ, "PYTHONPATH": str(root / "backend")}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "backend/tests/resources/test_generic.py",
            "-k",
            f"{package} or every_resource_has_test_data",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    assert "13 passed" in out and "skipped" not in out, out[-2000:]
    # and the generated Python is as the project's own: linted and formatted
    generated = [f"backend/liftdesk/generated/{package}.py", f"backend/liftdesk/generated/{package}_schemas.py"]
    ruff = Path(sys.executable).parent / "ruff"
    for check in (["check"], ["format", "--check"]):
        lint = subprocess.run([str(ruff), *check, *generated], cwd=root, capture_output=True, text=True, check=False)
        assert lint.returncode == 0, lint.stdout + lint.stderr
