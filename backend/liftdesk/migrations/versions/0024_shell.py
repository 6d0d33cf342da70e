"""shell helpers (issue 12 part 7): the columns each user hides per table, and page visits

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-26 23:20:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0024'
down_revision: str | None = '0023'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('liftdesk_show_hide',
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('table_key', sa.String(length=100), nullable=False),
    sa.Column('hidden', sa.Text(), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.Column('create_user', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('update_user', sa.BigInteger(), nullable=True),
    sa.Column('update_time', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_liftdesk_show_hide'))
    )
    with op.batch_alter_table('liftdesk_show_hide', schema=None) as batch_op:
        batch_op.create_index('ux_liftdesk_show_hide_user_table', ['tenant_id', 'user_id', 'table_key'], unique=True)
        batch_op.create_index(batch_op.f('ix_liftdesk_show_hide_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_show_hide_tenant_id'), ['tenant_id'], unique=False)

    op.create_table('liftdesk_page_log',
    sa.Column('page_path', sa.String(length=255), nullable=False),
    sa.Column('page_name', sa.String(length=100), nullable=False),
    sa.Column('behavior', sa.String(length=20), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.Column('create_user', sa.BigInteger(), nullable=True),
    sa.Column('create_dept', sa.BigInteger(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('update_user', sa.BigInteger(), nullable=True),
    sa.Column('update_time', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_liftdesk_page_log'))
    )
    with op.batch_alter_table('liftdesk_page_log', schema=None) as batch_op:
        batch_op.create_index('ix_liftdesk_page_log_time', ['tenant_id', 'create_time'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_page_log_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_page_log_tenant_id'), ['tenant_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('liftdesk_page_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_liftdesk_page_log_tenant_id'))
        batch_op.drop_index(batch_op.f('ix_liftdesk_page_log_create_dept'))
        batch_op.drop_index('ix_liftdesk_page_log_time')
    op.drop_table('liftdesk_page_log')
    with op.batch_alter_table('liftdesk_show_hide', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_liftdesk_show_hide_tenant_id'))
        batch_op.drop_index(batch_op.f('ix_liftdesk_show_hide_create_dept'))
        batch_op.drop_index('ux_liftdesk_show_hide_user_table')
    op.drop_table('liftdesk_show_hide')
