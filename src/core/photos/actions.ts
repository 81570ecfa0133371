import { uploadWithProgress } from '../api/upload';

/** Uploads one photo with progress. */
export function uploadPhoto(file: File, onProgress: (percent: number) => void): Promise<{ photo: { id: number; status: string } }> {
  return uploadWithProgress('/api/photos.php', file, onProgress);
}
