"""Where the reports stand in the registry.

A report reads vehicles and their daily aggregates: its calls are actions of the ``vehicle`` resource, so that the
vehicles' scope and data rule apply to them as to every other read of vehicles (the daily aggregates of a vehicle the
caller may not see are never summed). Each report is guarded by its own menu (``system/seed.py``): reading it needs
that menu, exporting it the menu's export button; the vehicle register's menu gives neither.
"""

from __future__ import annotations

from liftdesk.fleet.resources import FICS, VEHICLE

#: The resource the reports are declared on (its scope and data rule).
REPORTS = VEHICLE
#: The spec's prefix of the intelligent reports, and the tag they are documented under.
REPORT_PREFIX = f"{FICS}/intelligentReport"
TAG = "intelligentReport"
#: 智能报表 → 车辆效率报表: its menu code (reading) and its export button.
EFFICIENCY_MENU = "report_efficiency"
EFFICIENCY_EXPORT = f"{EFFICIENCY_MENU}_export"
