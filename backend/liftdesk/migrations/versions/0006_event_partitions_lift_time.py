"""event partitions, lift time

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 12:00:00

* ``fics_car_daily.lift_s``: seconds with the hydraulics working (fleet-domain §4: work = move ∪ load ∪ lift).
* PostgreSQL: ``fics_event`` partitioned like ``fics_position``, by tenant (list) then by month of ``begin_time``
  (range), so that a tenant's retention drops whole months of events as it does of positions. A partitioned table's
  primary key must hold its partition keys: it becomes (id, tenant_id, begin_time). The partition names are those
  ``telemetry.store.PartitionKeeper("fics_event")`` gives: ``fics_event_t<tenant>`` and
  ``fics_event_t<tenant>_<yyyymm>``. Existing events are copied into their partitions. SQLite keeps the plain table.
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import sqlalchemy as sa
from alembic import op


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    'id, tenant_id, vehicle_id, mechanism_id, kind, level, begin_time, end_time, value, max_value, limit_value, '
    'lat, lon, driver_name, detail, create_time'
)
INDEXES = (
    ('ix_fics_event_kind', ['kind']),
    ('ix_fics_event_mechanism_id', ['mechanism_id']),
    ('ix_fics_event_tenant_id', ['tenant_id']),
    ('ix_fics_event_vehicle_time', ['vehicle_id', 'begin_time']),
)


def _columns() -> list[sa.Column]:  # type: ignore[type-arg]
    return [
        sa.Column('vehicle_id', sa.BigInteger(), nullable=False),
        sa.Column('mechanism_id', sa.BigInteger(), nullable=True),
        sa.Column('kind', sa.String(length=32), nullable=False),
        sa.Column('level', sa.Integer(), nullable=False),
        sa.Column('begin_time', sa.DateTime(), nullable=False),
        sa.Column('end_time', sa.DateTime(), nullable=True),
        sa.Column('value', sa.Float(), nullable=True),
        sa.Column('max_value', sa.Float(), nullable=True),
        sa.Column('limit_value', sa.Float(), nullable=True),
        sa.Column('lat', sa.Float(), nullable=True),
        sa.Column('lon', sa.Float(), nullable=True),
        sa.Column('driver_name', sa.String(length=64), nullable=True),
        sa.Column('detail', sa.Text(), nullable=True),
        sa.Column('create_time', sa.DateTime(), nullable=False),
        sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('tenant_id', sa.String(length=12), nullable=False),
    ]


def _next_month(d: date) -> date:
    return date(d.year + (d.month == 12), d.month % 12 + 1, 1)


def upgrade() -> None:
    with op.batch_alter_table('fics_car_daily', schema=None) as batch_op:
        batch_op.add_column(sa.Column('lift_s', sa.Float(), server_default='0', nullable=False))
    bind = op.get_bind()
    if bind.dialect.name != 'postgresql':
        return
    op.execute('ALTER TABLE fics_event RENAME TO fics_event_unpartitioned')
    op.execute('ALTER TABLE fics_event_unpartitioned RENAME CONSTRAINT pk_fics_event TO pk_fics_event_unpartitioned')
    for name, _ in INDEXES:
        op.execute(f'DROP INDEX {name}')
    op.create_table(
        'fics_event',
        *_columns(),
        sa.PrimaryKeyConstraint('id', 'tenant_id', 'begin_time', name='pk_fics_event'),
        postgresql_partition_by='LIST (tenant_id)',
    )
    for name, columns in INDEXES:
        op.create_index(name, 'fics_event', columns, unique=False)
    months = bind.execute(
        sa.text(
            "SELECT DISTINCT tenant_id, date_trunc('month', begin_time)::date FROM fics_event_unpartitioned "
            'ORDER BY 1, 2'
        )
    ).all()
    parents: set[str] = set()
    for tenant, month in months:
        safe = ''.join(ch for ch in tenant if ch.isalnum())
        parent, child = f'fics_event_t{safe}', f'fics_event_t{safe}_{month:%Y%m}'
        if parent not in parents:
            lit = tenant.replace("'", "''")
            op.execute(
                f"CREATE TABLE IF NOT EXISTS {parent} PARTITION OF fics_event FOR VALUES IN ('{lit}') "
                'PARTITION BY RANGE (begin_time)'
            )
            parents.add(parent)
        op.execute(
            f'CREATE TABLE IF NOT EXISTS {child} PARTITION OF {parent} '
            f"FOR VALUES FROM ('{month:%Y-%m-%d}') TO ('{_next_month(month):%Y-%m-%d}')"
        )
    op.execute(f'INSERT INTO fics_event ({COLUMNS}) SELECT {COLUMNS} FROM fics_event_unpartitioned')
    op.execute('DROP TABLE fics_event_unpartitioned')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == 'postgresql':
        op.execute('ALTER TABLE fics_event RENAME TO fics_event_partitioned')
        op.execute('ALTER TABLE fics_event_partitioned RENAME CONSTRAINT pk_fics_event TO pk_fics_event_partitioned')
        for name, _ in INDEXES:
            op.execute(f'DROP INDEX {name}')
        op.create_table('fics_event', *_columns(), sa.PrimaryKeyConstraint('id', name='pk_fics_event'))
        for name, columns in INDEXES:
            op.create_index(name, 'fics_event', columns, unique=False)
        op.execute(f'INSERT INTO fics_event ({COLUMNS}) SELECT {COLUMNS} FROM fics_event_partitioned')
        op.execute('DROP TABLE fics_event_partitioned')  # its partitions go with it
    with op.batch_alter_table('fics_car_daily', schema=None) as batch_op:
        batch_op.drop_column('lift_s')
