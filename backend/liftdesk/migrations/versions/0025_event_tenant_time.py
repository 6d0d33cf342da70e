"""alarms by tenant and time (issue 13's benchmark): an index for the newest alarms of a tenant

The alarm lists and the home page's latest alarms take a tenant's newest events first; without this index each page
sorted the whole week (bench/fleet.py). On PostgreSQL ``fics_event`` is partitioned (0006): an index made on the
parent is made on every partition, and on the partitions made later.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-26 23:50:00
"""
from __future__ import annotations

from collections.abc import Sequence

from alembic import op


revision: str = '0025'
down_revision: str | None = '0024'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index('ix_fics_event_tenant_time', 'fics_event', ['tenant_id', 'begin_time'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_fics_event_tenant_time', table_name='fics_event')
