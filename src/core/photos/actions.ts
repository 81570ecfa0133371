import { REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE } from '../../shared/user.contract';
import { ApiError } from '../api/client';

/** Uploads one photo with progress (XHR, because fetch cannot report upload progress). */
export function uploadPhoto(file: File, onProgress: (percent: number) => void): Promise<{ photo: { id: number; status: string } }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/photos.php');
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    xhr.setRequestHeader(REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => {
      const body = (() => { try { return JSON.parse(xhr.responseText); } catch { return {}; } })();
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ApiError(xhr.status, body.error ?? 'error', body.message ?? xhr.statusText));
    };
    xhr.onerror = () => reject(new Error('network'));
    xhr.send(file);
  });
}
