import { REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE } from '../../shared/user.contract';
import { ApiError } from './client';

/**
 * POSTs a file as the raw body with upload progress (XHR: fetch cannot report it); answers the
 * parsed JSON, or rejects with the API's translated ApiError.
 */
export function uploadWithProgress<T>(url: string, file: File, onProgress: (percent: number) => void): Promise<T> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url);
    xhr.setRequestHeader('Content-Type', file.type || 'application/octet-stream');
    xhr.setRequestHeader(REQUEST_TYPE_HEADER, REQUEST_TYPE_VALUE);
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => {
      const body = (() => { try { return JSON.parse(xhr.responseText); } catch { return {}; } })();
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new ApiError(xhr.status, body.error ?? 'error', body.message ?? xhr.statusText, body.fields));
    };
    xhr.onerror = () => reject(new Error('network'));
    xhr.send(file);
  });
}
