import { api, call } from '../api/client';

export interface OwnPhoto { id: number; filename: string; thumb_filename: string; status: string; is_main: number }
export interface OwnProfile { profile: Record<string, string | number | null>; interests: string[]; photos: OwnPhoto[] }

export const loadOwnProfile = () => call(() => api.get('my-profile.php').json<OwnProfile>());
export const saveProfileFields = (fields: Record<string, string | null>) => call(() => api.patch('profile.php', { json: fields }).json());
export const saveInterests = (interests: string[]) => call(() => api.put('interests.php', { json: { interests } }).json());
export const setMainPhoto = (photo_id: number) => call(() => api.put('photo-main.php', { json: { photo_id } }).json());
export const deletePhoto = (photo_id: number) => call(() => api.delete('photos.php', { json: { photo_id } }).json());
export const moderate = (body: { photo_id: number; decision: 'approve' | 'reject' } | { report_id: number; decision: 'resolve' }) =>
  call(() => api.post('moderation.php', { json: body, retry: 0 }).json());
