"""SMS configurations (issue 12 part 5)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26 19:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('blade_sms',
    sa.Column('category', sa.Integer(), nullable=False),
    sa.Column('sms_code', sa.String(length=32), nullable=False),
    sa.Column('template_id', sa.String(length=64), nullable=False),
    sa.Column('access_key', sa.String(length=255), nullable=True),
    sa.Column('secret_key', sa.String(length=255), nullable=True),
    sa.Column('region_id', sa.String(length=64), nullable=True),
    sa.Column('sign_name', sa.String(length=64), nullable=True),
    sa.Column('app_id', sa.String(length=64), nullable=True),
    sa.Column('endpoint', sa.String(length=255), nullable=True),
    sa.Column('remark', sa.String(length=255), nullable=True),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('create_user', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('update_user', sa.BigInteger(), nullable=True),
    sa.Column('update_time', sa.DateTime(), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('is_deleted', sa.Integer(), nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_sms'))
    )
    with op.batch_alter_table('blade_sms', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_sms_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_sms_is_deleted'), ['is_deleted'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_sms_tenant_id'), ['tenant_id'], unique=False)
        # at most one enabled configuration per tenant, whatever runs at once
        batch_op.create_index(
            'ux_blade_sms_enabled', ['tenant_id'], unique=True,
            sqlite_where=sa.text('status = 2 AND is_deleted = 0'),
            postgresql_where=sa.text('status = 2 AND is_deleted = 0'),
        )


def downgrade() -> None:
    with op.batch_alter_table('blade_sms', schema=None) as batch_op:
        batch_op.drop_index('ux_blade_sms_enabled', sqlite_where=sa.text('status = 2 AND is_deleted = 0'))
        batch_op.drop_index(batch_op.f('ix_blade_sms_tenant_id'))
        batch_op.drop_index(batch_op.f('ix_blade_sms_is_deleted'))
        batch_op.drop_index(batch_op.f('ix_blade_sms_create_dept'))

    op.drop_table('blade_sms')
