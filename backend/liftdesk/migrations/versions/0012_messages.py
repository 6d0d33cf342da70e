"""messages: in-site messages, notices and message receivers

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25 09:40:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _audit() -> list[sa.Column]:
    return [
        sa.Column('create_user', sa.BigInteger(), nullable=True),
        sa.Column('create_dept', sa.BigInteger(), nullable=True),
        sa.Column('create_time', sa.DateTime(), nullable=False),
        sa.Column('update_user', sa.BigInteger(), nullable=True),
        sa.Column('update_time', sa.DateTime(), nullable=False),
    ]


def upgrade() -> None:
    op.create_table('blade_notice',
    sa.Column('title', sa.String(length=255), nullable=False),
    sa.Column('category', sa.Integer(), nullable=False),
    sa.Column('release_time', sa.DateTime(), nullable=True),
    sa.Column('content', sa.Text(), nullable=True),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    *_audit(),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('is_deleted', sa.Integer(), nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_blade_notice'))
    )
    with op.batch_alter_table('blade_notice', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_blade_notice_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_notice_is_deleted'), ['is_deleted'], unique=False)
        batch_op.create_index(batch_op.f('ix_blade_notice_tenant_id'), ['tenant_id'], unique=False)

    op.create_table('liftdesk_site_message',
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('msg_type', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=255), nullable=False),
    sa.Column('content', sa.Text(), nullable=True),
    sa.Column('user_num', sa.String(length=64), nullable=True),
    sa.Column('business_id', sa.BigInteger(), nullable=True),
    sa.Column('link', sa.String(length=255), nullable=True),
    sa.Column('is_read', sa.Integer(), nullable=False),
    sa.Column('read_time', sa.DateTime(), nullable=True),
    sa.Column('create_time', sa.DateTime(), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_liftdesk_site_message'))
    )
    with op.batch_alter_table('liftdesk_site_message', schema=None) as batch_op:
        batch_op.create_index('ix_liftdesk_site_message_user', ['tenant_id', 'user_id', 'is_read'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_site_message_tenant_id'), ['tenant_id'], unique=False)

    op.create_table('liftdesk_msg_receive',
    sa.Column('msg_type', sa.Integer(), nullable=False),
    sa.Column('send_type', sa.String(length=64), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    *_audit(),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_liftdesk_msg_receive'))
    )
    with op.batch_alter_table('liftdesk_msg_receive', schema=None) as batch_op:
        batch_op.create_index('ux_liftdesk_msg_receive_type', ['tenant_id', 'msg_type'], unique=True)
        batch_op.create_index(batch_op.f('ix_liftdesk_msg_receive_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_msg_receive_tenant_id'), ['tenant_id'], unique=False)

    op.create_table('liftdesk_msg_receive_user',
    sa.Column('msg_type', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('tenant_id', sa.String(length=12), nullable=False),
    *_audit(),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_liftdesk_msg_receive_user'))
    )
    with op.batch_alter_table('liftdesk_msg_receive_user', schema=None) as batch_op:
        batch_op.create_index('ux_liftdesk_msg_receive_user', ['tenant_id', 'msg_type', 'user_id'], unique=True)
        batch_op.create_index(batch_op.f('ix_liftdesk_msg_receive_user_create_dept'), ['create_dept'], unique=False)
        batch_op.create_index(batch_op.f('ix_liftdesk_msg_receive_user_tenant_id'), ['tenant_id'], unique=False)


def downgrade() -> None:
    for table in ('liftdesk_msg_receive_user', 'liftdesk_msg_receive', 'liftdesk_site_message', 'blade_notice'):
        op.drop_table(table)
