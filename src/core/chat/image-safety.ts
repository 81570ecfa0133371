import type { ChatMessage } from '../../shared/chat.contract';

/** A chat image still 'pending' this long after it was sent is shown as not checked (docs/safety-images.md). */
export const IMAGE_CHECK_TIMEOUT_MS = 30_000;

/** Why a chat image is shown blurred with "View", or null when it is shown as it is. */
export type ImageCover = 'checking' | 'explicit' | 'unchecked';

/**
 * What the viewer sees of a chat image: their own images and checked ones ('ok') as they are, as
 * everything when their setting shows explicit images; anything else blurred until they tap "View".
 */
export function imageCover(message: ChatMessage, viewerProfileId: number | undefined, showExplicit: boolean, now: number): ImageCover | null {
  const safety = message.image?.safety;
  if (!safety || safety === 'ok' || showExplicit || message.sender_profile_id === viewerProfileId) return null;
  if (safety === 'explicit') return 'explicit';
  if (safety === 'pending' && now - message.created_at < IMAGE_CHECK_TIMEOUT_MS) return 'checking';
  return 'unchecked';
}
