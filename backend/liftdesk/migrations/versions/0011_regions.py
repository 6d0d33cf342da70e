"""regions: the administrative divisions of China (blade_region, global), keyed by their GB/T 2260 code

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-25 07:50:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('blade_region',
    sa.Column('code', sa.String(length=12), nullable=False),
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('parent_code', sa.String(length=12), nullable=False),
    sa.Column('ancestors', sa.String(length=255), nullable=False),
    sa.Column('name', sa.String(length=64), nullable=False),
    sa.Column('province_code', sa.String(length=12), nullable=True),
    sa.Column('province_name', sa.String(length=64), nullable=True),
    sa.Column('city_code', sa.String(length=12), nullable=True),
    sa.Column('city_name', sa.String(length=64), nullable=True),
    sa.Column('district_code', sa.String(length=12), nullable=True),
    sa.Column('district_name', sa.String(length=64), nullable=True),
    sa.Column('town_code', sa.String(length=12), nullable=True),
    sa.Column('town_name', sa.String(length=64), nullable=True),
    sa.Column('village_code', sa.String(length=12), nullable=True),
    sa.Column('village_name', sa.String(length=64), nullable=True),
    sa.Column('region_level', sa.Integer(), nullable=False),
    sa.Column('remark', sa.String(length=255), nullable=True),
    sa.Column('parent_id', sa.BigInteger(), nullable=False),
    sa.Column('sort', sa.Integer(), nullable=False),
    sa.PrimaryKeyConstraint('code', name=op.f('pk_blade_region')),
    sa.UniqueConstraint('id', name=op.f('uq_blade_region_id'))
    )
    with op.batch_alter_table('blade_region', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_region_parent_id'), ['parent_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('blade_region', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_blade_region_parent_id'))

    op.drop_table('blade_region')
