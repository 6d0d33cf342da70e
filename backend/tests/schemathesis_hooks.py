"""schemathesis hooks of ``test_schemathesis.py`` (the CLI loads this module through ``SCHEMATHESIS_HOOKS``).

``documented_input_accepted``: a request the OpenAPI document allows is accepted. The refusal it is built around is
a row that does not exist: a well-formed id that names no row is answered as BladeX answers it, HTTP 400 with the
not-found message ("数据不存在" / "The record does not exist"), and existing clients rely on that.

A document says what a request may look like, not what the database holds, so a few more refusals of well-formed
requests are the server's state speaking, each with its own message (``REFUSALS_OF_STATE``): another row that does
not exist (a parent, a tenant, an organisation or role named by id), a value another row already holds, credentials
that match no account, devices that are not the caller's, registration switched off, the rules of a row that exists
(a vehicle without a terminal...), and what no JSON schema can say (a spreadsheet's content, a polygon whose edges
cross). Any other 4xx to a schema-valid request fails the run, and so does a 400 for any other reason: a required
field the document left optional, a format it did not state, a sort column it did not list. Server errors are
``not_a_server_error``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import schemathesis

from liftdesk.core.i18n import MESSAGES
from liftdesk.core.ids import ID_RE

#: ``core.i18n`` keys of the refusals that the server's data or settings make, not the request's form: by status,
#: the operations (path suffix, or "" for any) where each may answer a well-formed request, and why.
REFUSALS_OF_STATE: dict[str, tuple[int, str | tuple[str, ...], str]] = {
    "not_found": (400, "", "the id names no row"),
    "tenant_not_found": (400, "", "the tenant id names no tenant"),
    "bad_parent": (400, "", "parentId names no row"),
    "duplicate": (400, "", "another row holds the value (unique in the tenant)"),
    "device_bound_here": (400, "", "another vehicle holds the device number"),
    "device_unavailable": (400, "", "another tenant's vehicle holds the device number"),
    "bad_credentials": (400, "/oauth/token", "no account with that name and password"),
    "captcha_required": (400, "/oauth/token", "the account failed to sign in several times"),
    "too_many_failures": (400, "/oauth/token", "the account failed to sign in too often"),
    "forbidden": (403, "/api/liftdesk/ingest", "the devices are not the caller's (unknown ones included)"),
    "register_closed": (403, "/register-guest", "self-registration is switched off (a parameter)"),
    "import_unreadable": (400, "", "the file is no workbook (what a file holds, no schema says)"),
    "import_header": (400, "", "the workbook is not the template"),
    "import_empty": (400, "", "the workbook holds no rows"),
    "polygon_crossing": (400, "", "a polygon's edges cross (no schema says)"),
    "dept_sort_parents": (400, "/orgSort", "the organisations given have different parents (rows that exist)"),
    "dept_move_loop": (400, "/deptTransfer", "an organisation moved under itself or its own branch (rows that exist)"),
    "region_code_parent": (
        400,
        "/region/submit",
        "a region's code outside its parent's (no schema compares two fields)",
    ),
    "region_code_level": (400, "/region/submit", "a region's code not of its level (no schema compares two fields)"),
    "field_required": (
        400,
        ("/map/plan/upload", "/addIdicCard", "/addDriverInfo"),
        "an empty file (no schema states a file's least size); a main card (cardKind 1, the default) without its"
        " password, an app account without its password (no schema makes one field required by another's value)",
    ),
    "map_plan_missing": (400, "/map/plan/image", "the tenant has no site plan yet"),
    "map_plan_type": (
        400,
        "/map/plan/upload",
        "the file is no JPG, PNG or WebP image (what a file holds, no schema says)",
    ),
    "map_tile_template": (
        400,
        "/map/setting/save",
        "a tile template without {z}, {x} and {y} (to document as a pattern)",
    ),
    "map_corners_order": (400, "/map/setting/save", "the south-west corner not south-west (two fields compared)"),
    "map_corners_all": (400, "/map/setting/save", "some corners given and not all (no schema says all or none)"),
    "file_empty": (400, ("/file/upload", "/upload-logo"), "an empty file (no schema states a file's least size)"),
    "file_type": (400, "/file/upload", "the file is of no accepted kind (what a file holds, no schema says)"),
    "file_type_name": (400, "/common/cosToken", "fileName's extension is of no accepted kind (a setting)"),
    "direct_upload_local": (400, "/common/cosToken", "the tenant's files are kept on the local disk (no object store)"),
    "file_too_large": (400, ("/file/upload", "/upload-logo"), "the file is over the limit (a setting; a logo's 5 MB)"),
    "upload_rate": (
        400,
        ("/file/upload", "/upload-logo", "/common/cosToken", "/plan/upload", "/updateDriverFacePhoto"),
        "the user has uploaded as many files this hour as the tenant allows (a tenant setting)",
    ),
    "storage_quota": (
        400,
        ("/file/upload", "/upload-logo", "/common/cosToken", "/plan/upload", "/updateDriverFacePhoto"),
        "the tenant's files fill its storage quota (a tenant setting)",
    ),
    # organisation logos and registrations (system/api/logos.py, system/api/registrations.py)
    "logo_type": (400, "/upload-logo", "the file's name is no .jpg, .jpeg or .png (no schema names a file)"),
    "logo_content": (400, "/upload-logo", "the file's content is not the picture its name says (what a file holds)"),
    "logo_link": (400, "/dept/submit", "deptLogo is no picture uploaded to the tenant (rows that exist)"),
    "user_not_pending": (400, ("/audit-pass", "/audit-refuse"), "the users are no pending registrations (rows)"),
    "import_unknown_name": (400, "/audit-pass", "roleIds or deptIds name no role or organisation the caller sees"),
    "tenant_quota": (400, "/audit-pass", "the tenant's account quota is reached (rows that exist)"),
    "file_store_failed": (400, "", "the tenant's object storage refused the file or cannot be reached"),
    "file_missing": (400, "/attach/download", "the attachment's stored file is gone"),
    "oss_unreachable": (400, "/oss/test", "the configuration's service or bucket cannot be reached"),
    "oss_enable_race": (400, "/oss/enable", "another configuration was enabled at the same moment"),
    "period_order": (400, "", "a report's start day after its end day (no schema compares two fields)"),
    "period_too_long": (400, "", "a report's range longer than its cap (no schema counts days between two fields)"),
    "message_user_unknown": (400, "/selectUserSub", "the user ids name no user of the tenant (rows that exist)"),
    # rules of rows that exist, met when a generated id happens to name one
    "no_terminal": (400, "", "the vehicle has no terminal"),
    "has_children": (400, "", "the row has children"),
    "dept_has_users": (400, "", "the organisation has users"),
    "cannot_delete_builtin": (400, "", "the row is built in"),
    "command_not_pending": (400, "", "the command is no longer pending"),
    # drivers' papers and reminders (fleet/papers.py, fleet/api/papers.py, fleet/api/reminders.py)
    # data rules (core.scope) and passwords (system/api/passwords.py)
    "rule_no_model": (
        400,
        "/data-scope/submit",
        "resourceCode names no resource with a table (the resources are the registry's, not an enum of the document)",
    ),
    "password_common": (
        400,
        ("/blade-user/submit", "/blade-user/update", "/update-password", "/reset-password", "/replacePassword"),
        "the password is on the common-passwords list (no schema lists them)",
    ),
    # working alarms (reporting/handling.py): rows that exist and their state
    "alarm_not_found": (
        400,
        ("/alarm/ack", "/alarm/handle", "/alarm/close", "/alarm/history"),
        "the ids name no alarm the caller sees",
    ),
    "alarm_closed": (400, ("/alarm/ack", "/alarm/handle", "/alarm/close"), "the alarm is closed already"),
    "alarm_still_active": (400, "/alarm/close", "the alarm has not ended"),
    "alarm_cause_unknown": (400, "/alarm/handle", "cause names no entry of the tenant's alarm_cause dictionary"),
    "alarm_assignee_unknown": (400, "/alarm/handle", "assigneeId names no user of the tenant"),
    "paper_holder_unknown": (400, "", "driverId names no driver the caller sees (rows that exist)"),
    "paper_picture_unknown": (400, "", "a picture's attachId names no attachment of the tenant"),
    "paper_picture_type": (400, "", "a picture's attachment is no jpg or png (what a file holds)"),
    "paper_refused": (400, "", "the paper's state refuses the change (rows that exist)"),
    "paper_mixed": (400, "", "the selected papers differ in their states (rows that exist)"),
    "paper_return_past": (400, "/driverInfoPaper/loan", "a return date before today (no schema knows today)"),
    "reminder_not_open": (400, "", "the reminder is no longer open"),
    "card_serial_taken": (400, "", "another card holds the serial number (unique in the tenant)"),
    # SMS (system/sms.py, system/api/sms.py)
    "sms_not_found": (400, "/send-message", "code names no SMS configuration of the tenant (rows that exist)"),
    "sms_none_enabled": (400, "/send-message", "the tenant has no enabled SMS configuration (rows that exist)"),
    "sms_failed": (400, "/send-message", "the provider refused the message or cannot be reached"),
    "sms_params": (400, "/send-message", "params is no JSON object of texts (what a JSON text holds, no schema says)"),
    "sms_enable_race": (400, "/sms/enable", "another configuration was enabled at the same moment"),
    # addresses tenants typed in, checked when called (core/egress.py): what a saved endpoint resolves to now
    "endpoint_internal": (400, "", "a saved endpoint leads to an internal address (what its name resolves to now)"),
    "endpoint_unresolved": (400, "", "a saved endpoint's name does not resolve now (DNS, not the request's form)"),
    "endpoint_scheme": (400, "", "a saved endpoint is no usable http(s) address (rows that exist)"),
    "sms_too_frequent": (400, "/send-validate", "a code was sent to the number less than a minute ago"),
    "sms_hour_limit": (400, "/send-validate", "five codes were sent to the number in the last hour"),
    # code generation (system/codegen): what exists, and rules across a record's fields
    "codegen_table_exists": (400, "/code/submit", "a table of that name exists (rows of the database)"),
    "codegen_package_taken": (400, "/code/submit", "a resource of that name is registered (the server's code)"),
    "codegen_column_twice": (400, "/code/submit", "two fields of the list name one column (no schema compares items)"),
    "codegen_needs_string": (400, "/code/submit", "no field of the list is text (the label)"),
    "codegen_prefix": (400, "/code/submit", "the table prefix does not begin the table name (two fields compared)"),
    "codegen_same_twice": (400, "/code/gen-code", "the chosen records share a table or package (rows that exist)"),
}
_ID = re.compile(f"^{ID_RE}$")

# A spreadsheet upload's part is declared with the spreadsheet types (``core.transfer.UPLOAD_DOCUMENT``): its bytes
# are sent as they are, as for any binary part.
schemathesis.serializer.alias(
    [
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.ms-excel",
    ],
    "application/octet-stream",
)


def _template(text: str) -> re.Pattern[str]:
    """A message template of ``core.i18n`` (``{field} 已存在: {value}``) as a regular expression."""
    parts = re.split(r"(?<!\{)\{(\w+)\}(?!\})", text)
    literal = lambda p: re.escape(p.replace("{{", "{").replace("}}", "}"))  # noqa: E731 (str.format's escapes)
    pattern = "".join(literal(p) if i % 2 == 0 else f"(?P<{p}>.*?)" for i, p in enumerate(parts))
    return re.compile(f"^{pattern}$", re.S)


_STATE = [(key, _template(text)) for key in REFUSALS_OF_STATE for text in MESSAGES[key]]
_FIELD_INVALID = [_template(text) for text in MESSAGES["field_invalid"]]


def _message(body: bytes) -> str:
    try:
        answer: Any = json.loads(body)
    except ValueError:
        return ""
    return str(answer.get("msg", "")) if isinstance(answer, dict) else ""


def _ids(value: Any) -> Iterator[bool]:
    if isinstance(value, list):
        for item in value:
            yield from _ids(item)
    elif isinstance(value, str):
        yield from (bool(_ID.match(part)) for part in value.split(","))
    else:
        yield False


def _names_an_id(case: Any, field: str) -> bool:
    """Did the request give ``field`` as ids (well-formed)? Then "``field`` is not valid" means they name no row
    (the server's words for an organisation, role, vehicle... that does not exist)."""
    for given in (case.body, case.query):
        if isinstance(given, dict) and field in given:
            found = list(_ids(given[field]))
            return bool(found) and all(found)
    return False


def state_refusal(case: Any, status: int, msg: str) -> str | None:
    """Why the server's state (not the request's form) refused it, or None."""
    path = case.operation.path
    for key, template in _STATE:
        expected, where, why = REFUSALS_OF_STATE[key]
        if status == expected and path.endswith(where) and template.match(msg):
            return why
    if status == 400:
        for template in _FIELD_INVALID:
            found = template.match(msg)
            if found and _names_an_id(case, found["field"]):
                return f"{found['field']} names no row"
    return None


@schemathesis.check
def documented_input_accepted(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None  # negative data: anything but a server error will do
    status = response.status_code
    if status < 400 or status >= 500:
        return None
    if state_refusal(case, status, _message(response.content)) is not None:
        return None
    raise AssertionError(
        f"{case.operation.label}: the document allows this request, and the server refused it "
        f"({status}: {response.content[:300].decode(errors='replace')})"
    )
