import type { Kysely } from 'kysely';
import type { Dialect } from '../database';
import { idColumn } from './helpers';

/** Profiles, their interests and photos. */
export function createProfiles(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>) {
      await idColumn(db.schema.createTable('profiles'), dialect)
        .addColumn('site_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('user_id', 'integer')
        .addColumn('name', 'varchar(64)', (c) => c.notNull())
        .addColumn('gender', 'varchar(8)', (c) => c.notNull())
        .addColumn('sexuality', 'varchar(8)', (c) => c.notNull())
        .addColumn('birth_date', 'varchar(10)', (c) => c.notNull())
        .addColumn('country', 'varchar(2)', (c) => c.notNull())
        .addColumn('region', 'varchar(64)')
        .addColumn('city', 'varchar(96)')
        .addColumn('hair_color', 'varchar(16)')
        .addColumn('eye_color', 'varchar(16)')
        .addColumn('body_type', 'varchar(16)')
        .addColumn('relationship_status', 'varchar(16)')
        .addColumn('tattoos', 'varchar(16)')
        .addColumn('about', 'text')
        .addColumn('fictional', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('invisible', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('active'))
        .addColumn('last_active_at', 'bigint', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('profiles_search_idx')
        .on('profiles')
        .columns(['site_id', 'status', 'gender', 'country', 'region', 'birth_date'])
        .execute();
      await db.schema.createIndex('profiles_user_idx').on('profiles').column('user_id').execute();
      await db.schema.createIndex('profiles_site_active_idx').on('profiles').columns(['site_id', 'last_active_at']).execute();

      await db.schema
        .createTable('profile_interests')
        .addColumn('profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('interest', 'varchar(32)', (c) => c.notNull())
        .addPrimaryKeyConstraint('profile_interests_pk', ['profile_id', 'interest'])
        .execute();

      await idColumn(db.schema.createTable('photos'), dialect)
        .addColumn('profile_id', 'integer', (c) => c.notNull().references('profiles.id').onDelete('cascade'))
        .addColumn('filename', 'varchar(160)', (c) => c.notNull())
        .addColumn('thumb_filename', 'varchar(160)', (c) => c.notNull())
        .addColumn('status', 'varchar(20)', (c) => c.notNull())
        .addColumn('is_main', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('photos_profile_idx').on('photos').columns(['profile_id', 'is_main']).execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable('photos').execute();
      await db.schema.dropTable('profile_interests').execute();
      await db.schema.dropTable('profiles').execute();
    },
  };
}
