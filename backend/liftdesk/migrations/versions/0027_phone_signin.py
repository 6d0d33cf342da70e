"""phone sign-in codes (issue 12): blade_sms_validate, and the sms_code grant for the seeded clients

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-26 19:30:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0027'
down_revision: str | None = '0026'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CLIENTS = "client_id IN ('sword', 'saber')"


def upgrade() -> None:
    op.create_table('blade_sms_validate',
    sa.Column('key', sa.String(length=64), nullable=False),
    sa.Column('phone', sa.String(length=20), nullable=False),
    sa.Column('code_hash', sa.String(length=64), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('used', sa.Integer(), nullable=False),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('expire_time', sa.DateTime(), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_sms_validate')),
    sa.UniqueConstraint('key', name=op.f('uq_blade_sms_validate_key'))
    )
    with op.batch_alter_table('blade_sms_validate', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_sms_validate_create_time'), ['create_time'], unique=False)
        batch_op.create_index('ix_blade_sms_validate_phone_time', ['phone', 'create_time'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_sms_validate_tenant_id'), ['tenant_id'], unique=False)
    # the seeded web clients may sign in by phone (a client added by an administrator keeps its own list)
    op.execute(
        "UPDATE blade_client SET authorized_grant_types = authorized_grant_types || ',sms_code' "
        f"WHERE {CLIENTS} AND authorized_grant_types NOT LIKE '%sms_code%'"
    )


def downgrade() -> None:
    op.execute(
        "UPDATE blade_client SET authorized_grant_types = REPLACE(authorized_grant_types, ',sms_code', '') "
        f"WHERE {CLIENTS}"
    )
    with op.batch_alter_table('blade_sms_validate', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_blade_sms_validate_tenant_id'))
        batch_op.drop_index('ix_blade_sms_validate_phone_time')
        batch_op.drop_index(batch_op.f('ix_blade_sms_validate_create_time'))

    op.drop_table('blade_sms_validate')
