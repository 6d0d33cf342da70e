"""Each model is read through the data rule of its OWN resource, whatever resource the request is about.

A user whose role sees the vehicles of its own organisation (data scope type 3 on ``create_dept`` for the vehicle
resource) once could not create a vehicle in that organisation: the organisation (a ``Dept`` row) was looked up with
the *vehicle* rule, ``Dept.create_dept in (my organisation)``, which the organisation's own row does not satisfy.
"""

from __future__ import annotations

import uuid

from sqlalchemy import delete

from liftdesk.core.db import Database
from liftdesk.core.scope import organisation_branch
from liftdesk.system.models import Dept
from tests.conftest import Api, own_organisation_user

CAR = "/api/blade-fics-report/fics/carInfo"


async def test_own_organisation_user_creates_vehicles_in_their_organisation_only(api: Api) -> None:
    depts = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east, south = depts["children"][0]["id"], depts["children"][1]["id"]
    async with own_organisation_user(api, east, buttons=("vehicle_add",)) as who:
        body = {"carNo": api.unique("OWN-"), "carType": 4, "ratedLoadKg": 2000}
        mine = await api.post(f"{CAR}/insertCarInfo", json={**body, "mechanismId": east}, **who)
        assert mine["_status"] == 200 and mine["code"] == 200, mine
        assert mine["data"]["mechanismId"] == east and mine["data"]["createDept"] == east
        # they see what they created
        seen = await api.get(f"{CAR}/getCarInfo", params={"carId": mine["data"]["id"]}, **who)
        assert seen["code"] == 200, seen

        # an organisation outside their data scope is refused, named as the caller's mistake
        theirs = await api.post(
            f"{CAR}/insertCarInfo", json={**body, "carNo": api.unique("OWN-"), "mechanismId": south}, **who
        )
        assert theirs["_status"] == 400 and "mechanismId" in theirs["msg"], theirs
        # without a mechanismId the vehicle goes to the caller's own organisation
        default = await api.post(f"{CAR}/insertCarInfo", json={**body, "carNo": api.unique("OWN-")}, **who)
        assert default["code"] == 200 and default["data"]["mechanismId"] == east, default


async def test_an_organisation_branch_is_its_own_subtree_only(db: Database) -> None:
    """``organisation_branch(tenant, 12)``: 12 and the organisations under it, not 112 (whose id holds "12"), nor a
    child of 12 in another tenant, nor a deleted one."""
    tenant, other = "br" + uuid.uuid4().hex[:8], "bo" + uuid.uuid4().hex[:8]
    tree = {  # id: (tenant, ancestors, deleted)
        12: (tenant, "0", 0),
        13: (tenant, "0,12", 0),
        14: (tenant, "0,12,13", 0),
        112: (tenant, "0", 0),
        113: (tenant, "0,112", 0),
        1120: (tenant, "0,112,113", 0),
        120: (tenant, "0,112,113,1120", 0),
        15: (other, "0,12", 0),
        16: (tenant, "0,12", 1),
    }
    async with db.sessionmaker() as s:
        s.add_all(
            Dept(id=i, tenant_id=t, parent_id=int(a.rsplit(",", 1)[-1]), ancestors=a, dept_name=f"d{i}", is_deleted=d)
            for i, (t, a, d) in tree.items()
        )
        await s.commit()
    try:
        async with db.sessionmaker() as s:

            async def branch(org: int, in_tenant: str = tenant) -> set[int]:
                return set((await s.execute(organisation_branch(in_tenant, org))).scalars().all())

            assert await branch(12) == {12, 13, 14}
            assert await branch(112) == {112, 113, 1120, 120}
            assert await branch(13) == {13, 14}
            assert await branch(1120) == {1120, 120}
            assert await branch(12, other) == {15}, "a tenant's branch holds its own rows only"
            assert set((await s.execute(organisation_branch(tenant, 13, 113))).scalars().all()) == {
                13,
                14,
                113,
                1120,
                120,
            }
            assert (await s.execute(organisation_branch(tenant))).first() is None
    finally:
        async with db.sessionmaker() as s:
            await s.execute(delete(Dept).where(Dept.tenant_id.in_([tenant, other])))
            await s.commit()


def test_a_model_gets_the_rule_of_its_own_resource_only() -> None:
    from liftdesk.app import build_registry
    from liftdesk.core.scope import DataRule, Scope
    from liftdesk.core.security import Principal
    from liftdesk.fleet.models import Fence, Vehicle
    from liftdesk.telemetry.models import Command, Terminal

    build_registry()
    me = Principal(user_id=7, tenant_id="000000", account="x", role_ids=(1,), dept_ids=(5,))
    scope = Scope(principal=me, tenant_id="000000", dept_ids=(5,), rules={"vehicle": DataRule(3)})

    def where(model: type, data: bool = True) -> str:
        sql = str(scope.select(model, data=data).compile(compile_kwargs={"literal_binds": True}))
        return sql.split("WHERE", 1)[1]

    assert "create_dept IN (5)" in where(Vehicle)
    assert "create_dept" not in where(Dept), "the vehicle rule does not reach organisations"
    assert "create_dept" not in where(Fence), "nor fences, which have a resource of their own"
    assert where(Terminal).strip() == "fics_terminal.tenant_id = '000000'", "no resource: tenant (soft delete) only"
    assert scope.narrows(Vehicle) and not scope.narrows(Dept)
    # commands have a resource of their own (the command log): the vehicle rule reaches them through their vehicle
    # (``telemetry.command_log.visible``), not as their own rule
    assert not scope.narrows(Command)
    assert "create_dept" not in where(Vehicle, data=False), "data=False: tenant and soft delete only"


async def test_uniqueness_holds_across_the_whole_tenant_whatever_the_data_scope(api: Api) -> None:
    """A user who sees the posts of their own organisation only cannot create a post whose code exists in another
    organisation of the tenant: a unique key is unique in the tenant, not in what one user sees."""
    depts = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east = depts["children"][0]["id"]
    code = api.unique("p")[:12]
    post = {"postCode": code, "postName": api.unique("post "), "sort": 1, "category": 1}
    taken = await api.post("/api/blade-system/post/submit", json=post)
    assert taken["code"] == 200, taken
    async with own_organisation_user(api, east, buttons=("post_add",), resource="post", menus=("post",)) as who:
        unseen = await api.get("/api/blade-system/post/page", params={"postCode": code}, **who)
        assert unseen["code"] == 200 and not unseen["data"]["records"], "the administrator's post is unseen"
        twin = await api.post("/api/blade-system/post/submit", json={**post, "postName": "twin"}, **who)
        assert twin["_status"] == 400 and code in twin["msg"], twin


def test_a_rule_on_a_column_the_model_lacks_admits_no_row() -> None:
    """Fail closed: a rule whose column the model lacks cannot say which rows it admits, so it admits none (it once
    admitted every row, while a type-2 rule without ``create_user`` admitted none)."""
    from liftdesk.app import build_registry
    from liftdesk.core.scope import DataRule, Scope
    from liftdesk.core.security import Principal
    from liftdesk.fleet.models import Vehicle

    build_registry()
    me = Principal(user_id=7, tenant_id="000000", account="x", role_ids=(1,), dept_ids=(5,))

    def where(rule: DataRule) -> str:
        scope = Scope(principal=me, tenant_id="000000", dept_ids=(5,), rules={"vehicle": rule})
        sql = str(scope.select(Vehicle).compile(compile_kwargs={"literal_binds": True}))
        return sql.split("WHERE", 1)[1]

    assert "create_dept IN (5)" in where(DataRule(3))
    for scope_type in (3, 4, 5):
        lacking = where(DataRule(scope_type, column="no_such_column", value="5"))
        assert "false" in lacking.lower() or "1 != 1" in lacking, (scope_type, lacking)
    assert "false" in where(DataRule(9)).lower() or "1 != 1" in where(DataRule(9)), "an unknown type admits nothing"


async def test_the_data_scope_form_refuses_a_rule_that_could_admit_nothing(api: Api) -> None:
    """Every grantable rule is checked against the model it applies to: a subject without a table of its own (the
    live state, the home page, a report) takes no rule (its rows are the vehicles', under the vehicle's rule), and a
    rule's column must be one of the model's."""
    from liftdesk.core.registry import REGISTRY

    url = "/api/blade-system/data-scope/submit"
    base = {"scopeName": "x", "scopeType": 3}
    subject = await api.post(url, json={**base, "resourceCode": "car_monitor", "scopeColumn": "create_dept"})
    assert subject["_status"] == 400 and "car_monitor" in subject["msg"], subject
    column = await api.post(url, json={**base, "resourceCode": "vehicle", "scopeColumn": "no_such_column"})
    assert column["_status"] == 400 and "scopeColumn" in column["msg"], column
    fine = await api.post(url, json={**base, "resourceCode": "vehicle", "scopeColumn": "mechanism_id"})
    assert fine["code"] == 200, fine
    assert (await api.post("/api/blade-system/data-scope/remove", params={"ids": fine["data"]["id"]}))["code"] == 200
    # every resource: with a model, its default column decides; without one, no rule at all
    for res in REGISTRY:
        problem = REGISTRY.rule_problem(res.code, "create_dept")
        if res.model is None and REGISTRY.model_of(res.code) is None:
            assert problem == "no_model", res.name
        elif res.model is not None:
            assert (problem is None) == ("create_dept" in res.columns), res.name


async def test_a_stored_rule_on_a_missing_column_shows_nothing_and_is_reported(api: Api) -> None:
    """A rule written before the form refused it (or by hand) fails closed for its users, and the start-up check
    names it."""
    from sqlalchemy import update as sql_update

    from liftdesk.app import report_unusable_rules
    from liftdesk.system.models import ScopeData

    depts = (await api.get("/api/blade-system/dept/list"))["data"][0]
    east = depts["children"][0]["id"]
    car = await api.post(
        f"{CAR}/insertCarInfo", json={"carNo": api.unique("FC-"), "carType": 4, "ratedLoadKg": 1, "mechanismId": east}
    )
    assert car["code"] == 200, car
    assert not await report_unusable_rules(api.db), "a seeded database holds no unusable rule"
    async with own_organisation_user(api, east) as who:
        seen = await api.get(f"{CAR}/page", params={"size": 1000}, **who)
        assert car["data"]["id"] in {r["id"] for r in seen["data"]["records"]}, "own organisation: the car is seen"
        async with api.db.sessionmaker() as s:  # the rule's column becomes one the vehicles lack
            await s.execute(
                sql_update(ScopeData)
                .where(ScopeData.resource_code == "vehicle", ScopeData.scope_name == "own organisation")
                .values(scope_column="no_such_column")
            )
            await s.commit()
        blind = await api.get(f"{CAR}/page", params={"size": 1000}, **who)
        assert blind["code"] == 200 and blind["data"]["records"] == [], "a rule that cannot be evaluated admits none"
        problems = await report_unusable_rules(api.db)
        assert any("vehicle.no_such_column" in p for p in problems), problems
