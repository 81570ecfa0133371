import type { Generated, Insertable, Selectable } from 'kysely';

/** A member's or an operator-run profile. Booleans are 0/1 so SQLite and PostgreSQL agree. */
export interface ProfileTable {
  id: Generated<number>;
  site_id: string;
  user_id: number | null;
  name: string;
  gender: 'male' | 'female';
  sexuality: 'hetero' | 'gay' | 'lesbian' | 'bi';
  birth_date: string;
  country: string;
  region: string | null;
  city: string | null;
  hair_color: string | null;
  eye_color: string | null;
  body_type: string | null;
  relationship_status: string | null;
  tattoos: string | null;
  about: string | null;
  fictional: number;
  invisible: number;
  status: 'active' | 'disabled' | 'deleted';
  last_active_at: number;
  created_at: number;
}
export type Profile = Selectable<ProfileTable>;
export type NewProfile = Insertable<ProfileTable>;

export interface ProfileInterestTable {
  profile_id: number;
  interest: string;
}

/** Photos; 'active' is public, 'under inspection' waits for a moderator. */
export interface PhotoTable {
  id: Generated<number>;
  profile_id: number;
  filename: string;
  thumb_filename: string;
  status: 'active' | 'under inspection' | 'rejected';
  is_main: number;
  created_at: number;
}
export type Photo = Selectable<PhotoTable>;

export interface Database {
  profiles: ProfileTable;
  profile_interests: ProfileInterestTable;
  photos: PhotoTable;
}
