"""tenant map setting: a basemap (tile URL template) and a site plan image placed by two corners

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 06:40:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('liftdesk_map_setting',
    sa.Column('tile_url', sa.String(length=500), nullable=False),
    sa.Column('attribution', sa.String(length=200), nullable=False),
    sa.Column('max_zoom', sa.Integer(), nullable=True),
    sa.Column('plan_image', sa.LargeBinary(), nullable=True),
    sa.Column('plan_type', sa.String(length=20), nullable=True),
    sa.Column('plan_size', sa.Integer(), nullable=True),
    sa.Column('plan_hash', sa.String(length=64), nullable=True),
    sa.Column('plan_south', sa.Float(), nullable=True),
    sa.Column('plan_west', sa.Float(), nullable=True),
    sa.Column('plan_north', sa.Float(), nullable=True),
    sa.Column('plan_east', sa.Float(), nullable=True),
    sa.Column('plan_opacity', sa.Float(), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.Column('create_user', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('update_user', sa.BigInteger(), nullable=True),
    sa.Column('update_time', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_liftdesk_map_setting'))
    )
    with op.batch_alter_table('liftdesk_map_setting', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_liftdesk_map_setting_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_map_setting_tenant_id'), ['tenant_id'], unique=False)
        batch_op.create_index('ux_liftdesk_map_setting_tenant', ['tenant_id'], unique=True)


def downgrade() -> None:
    with op.batch_alter_table('liftdesk_map_setting', schema=None) as batch_op:
        batch_op.drop_index('ux_liftdesk_map_setting_tenant')
        batch_op.drop_index(batch_op.f('ix_liftdesk_map_setting_tenant_id'))
        batch_op.drop_index(batch_op.f('ix_liftdesk_map_setting_create_dept'))

    op.drop_table('liftdesk_map_setting')
