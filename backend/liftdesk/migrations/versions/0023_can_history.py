"""CAN history for the monitor charts (issue 13)

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-26 19:30:00

``fics_can_sample``: the J1939 parameters each CAN upload carried, decoded (``telemetry.can``), per vehicle and
time. PostgreSQL: partitioned like ``fics_position``, one list partition per tenant, each a range partition per
month of ``sample_time`` (``telemetry.store.PartitionKeeper("fics_can_sample")`` creates them as data arrives;
retention drops whole months). SQLite keeps a plain table.
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0023'
down_revision: str | None = '0022'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'fics_can_sample',
        sa.Column('tenant_id', sa.String(length=12), nullable=False),
        sa.Column('vehicle_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('sample_time', sa.DateTime(), nullable=False),
        sa.Column('engine_rpm', sa.Float(), nullable=True),
        sa.Column('pedal_pct', sa.Float(), nullable=True),
        sa.Column('load_pct', sa.Float(), nullable=True),
        sa.Column('fuel_lph', sa.Float(), nullable=True),
        sa.Column('air_kgh', sa.Float(), nullable=True),
        sa.Column('dpf_dp_kpa', sa.Float(), nullable=True),
        sa.Column('soot_pct', sa.Float(), nullable=True),
        sa.Column('def_pct', sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint('tenant_id', 'vehicle_id', 'sample_time', name=op.f('pk_fics_can_sample')),
        postgresql_partition_by='LIST (tenant_id)',
    )


def downgrade() -> None:
    op.drop_table('fics_can_sample')  # on PostgreSQL its partitions go with it
