"""Initial catalog schema: files, cards, lorebooks and entries, assets, provenance, migrations, reports.

Revision ID: 0001
Revises:
Create Date: 2026-11-21
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('assets',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_assets')),
    sa.UniqueConstraint('sha256', name=op.f('uq_assets_sha256'))
    )
    op.create_table('lorebooks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('entry_count', sa.Integer(), nullable=False),
    sa.Column('canonical', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_lorebooks')),
    sa.UniqueConstraint('content_hash', name=op.f('uq_lorebooks_content_hash'))
    )
    op.create_table('source_files',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('sha256', sa.String(length=64), nullable=False),
    sa.Column('path', sa.Text(), nullable=False),
    sa.Column('size', sa.BigInteger(), nullable=False),
    sa.Column('format', sa.String(length=64), nullable=True),
    sa.Column('platform', sa.String(length=64), nullable=True),
    sa.Column('kind', sa.String(length=16), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('warnings', sa.Text(), nullable=True),
    sa.Column('imported_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_source_files')),
    sa.UniqueConstraint('sha256', name=op.f('uq_source_files_sha256'))
    )
    with op.batch_alter_table('source_files', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_source_files_format'), ['format'], unique=False)
        batch_op.create_index(batch_op.f('ix_source_files_platform'), ['platform'], unique=False)

    op.create_table('cards',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('creator', sa.Text(), nullable=True),
    sa.Column('spec', sa.String(length=64), nullable=True),
    sa.Column('spec_version', sa.String(length=32), nullable=True),
    sa.Column('canonical', sa.Text(), nullable=False),
    sa.Column('lorebook_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['lorebook_id'], ['lorebooks.id'], name=op.f('fk_cards_lorebook_id_lorebooks')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_cards')),
    sa.UniqueConstraint('content_hash', name=op.f('uq_cards_content_hash'))
    )
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_cards_lorebook_id'), ['lorebook_id'], unique=False)

    op.create_table('lorebook_entries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('lorebook_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('keys', sa.Text(), nullable=False),
    sa.Column('secondary_keys', sa.Text(), nullable=False),
    sa.Column('keys_text', sa.Text(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('constant', sa.Boolean(), nullable=False),
    sa.Column('selective', sa.Boolean(), nullable=False),
    sa.Column('use_regex', sa.Boolean(), nullable=False),
    sa.Column('case_sensitive', sa.Boolean(), nullable=False),
    sa.Column('insertion_order', sa.Float(), nullable=True),
    sa.Column('content_hash', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['lorebook_id'], ['lorebooks.id'], name=op.f('fk_lorebook_entries_lorebook_id_lorebooks'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_lorebook_entries')),
    sa.UniqueConstraint('lorebook_id', 'position', name=op.f('uq_lorebook_entries_lorebook_id_position'))
    )
    op.create_table('lorebook_sources',
    sa.Column('source_file_id', sa.Integer(), nullable=False),
    sa.Column('lorebook_id', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.ForeignKeyConstraint(['lorebook_id'], ['lorebooks.id'], name=op.f('fk_lorebook_sources_lorebook_id_lorebooks'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_file_id'], ['source_files.id'], name=op.f('fk_lorebook_sources_source_file_id_source_files'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('source_file_id', 'lorebook_id', name=op.f('pk_lorebook_sources'))
    )
    with op.batch_alter_table('lorebook_sources', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_lorebook_sources_lorebook_id'), ['lorebook_id'], unique=False)

    op.create_table('card_assets',
    sa.Column('card_id', sa.Integer(), nullable=False),
    sa.Column('role', sa.String(length=16), nullable=False),
    sa.Column('uri', sa.String(length=1000), nullable=False),
    sa.Column('asset_id', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(length=64), nullable=True),
    sa.Column('name', sa.Text(), nullable=True),
    sa.Column('ext', sa.String(length=32), nullable=True),
    sa.ForeignKeyConstraint(['asset_id'], ['assets.id'], name=op.f('fk_card_assets_asset_id_assets')),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_card_assets_card_id_cards'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('card_id', 'role', 'uri', name=op.f('pk_card_assets'))
    )
    with op.batch_alter_table('card_assets', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_card_assets_asset_id'), ['asset_id'], unique=False)

    op.create_table('card_sources',
    sa.Column('source_file_id', sa.Integer(), nullable=False),
    sa.Column('card_id', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_card_sources_card_id_cards'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_file_id'], ['source_files.id'], name=op.f('fk_card_sources_source_file_id_source_files'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('source_file_id', 'card_id', name=op.f('pk_card_sources'))
    )
    with op.batch_alter_table('card_sources', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_card_sources_card_id'), ['card_id'], unique=False)

    op.create_table('card_tags',
    sa.Column('card_id', sa.Integer(), nullable=False),
    sa.Column('tag', sa.String(length=200), nullable=False),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_card_tags_card_id_cards'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('card_id', 'tag', name=op.f('pk_card_tags'))
    )
    with op.batch_alter_table('card_tags', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_card_tags_tag'), ['tag'], unique=False)

    op.create_table('migrations',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('source_file_id', sa.Integer(), nullable=False),
    sa.Column('item_kind', sa.String(length=16), nullable=False),
    sa.Column('card_id', sa.Integer(), nullable=True),
    sa.Column('lorebook_id', sa.Integer(), nullable=True),
    sa.Column('target', sa.String(length=64), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('reason', sa.Text(), nullable=True),
    sa.Column('output_path', sa.Text(), nullable=True),
    sa.Column('output_sha256', sa.String(length=64), nullable=True),
    sa.Column('read_ms', sa.Float(), nullable=False),
    sa.Column('convert_ms', sa.Float(), nullable=False),
    sa.Column('report_ms', sa.Float(), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['card_id'], ['cards.id'], name=op.f('fk_migrations_card_id_cards')),
    sa.ForeignKeyConstraint(['lorebook_id'], ['lorebooks.id'], name=op.f('fk_migrations_lorebook_id_lorebooks')),
    sa.ForeignKeyConstraint(['source_file_id'], ['source_files.id'], name=op.f('fk_migrations_source_file_id_source_files'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_migrations')),
    sa.UniqueConstraint('source_file_id', 'target', name=op.f('uq_migrations_source_file_id_target'))
    )
    with op.batch_alter_table('migrations', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_migrations_card_id'), ['card_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_migrations_lorebook_id'), ['lorebook_id'], unique=False)

    op.create_table('fidelity_reports',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('migration_id', sa.Integer(), nullable=False),
    sa.Column('kept', sa.Integer(), nullable=False),
    sa.Column('translated', sa.Integer(), nullable=False),
    sa.Column('stashed', sa.Integer(), nullable=False),
    sa.Column('approximated', sa.Integer(), nullable=False),
    sa.Column('lost', sa.Integer(), nullable=False),
    sa.Column('has_losses', sa.Boolean(), nullable=False),
    sa.Column('report', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['migration_id'], ['migrations.id'], name=op.f('fk_fidelity_reports_migration_id_migrations'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fidelity_reports')),
    sa.UniqueConstraint('migration_id', name=op.f('uq_fidelity_reports_migration_id'))
    )


def downgrade() -> None:
    op.drop_table('fidelity_reports')
    with op.batch_alter_table('migrations', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_migrations_lorebook_id'))
        batch_op.drop_index(batch_op.f('ix_migrations_card_id'))

    op.drop_table('migrations')
    with op.batch_alter_table('card_tags', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_card_tags_tag'))

    op.drop_table('card_tags')
    with op.batch_alter_table('card_sources', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_card_sources_card_id'))

    op.drop_table('card_sources')
    with op.batch_alter_table('card_assets', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_card_assets_asset_id'))

    op.drop_table('card_assets')
    with op.batch_alter_table('lorebook_sources', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_lorebook_sources_lorebook_id'))

    op.drop_table('lorebook_sources')
    op.drop_table('lorebook_entries')
    with op.batch_alter_table('cards', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_cards_lorebook_id'))

    op.drop_table('cards')
    with op.batch_alter_table('source_files', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_source_files_platform'))
        batch_op.drop_index(batch_op.f('ix_source_files_format'))

    op.drop_table('source_files')
    op.drop_table('lorebooks')
    op.drop_table('assets')
