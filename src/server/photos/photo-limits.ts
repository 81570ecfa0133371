/** Largest photo upload accepted. */
export const PHOTO_MAX_BYTES = 10 * 1024 * 1024;
/** Larger images are refused before decoding: guards against decompression bombs. */
export const MAX_PIXELS = 40_000_000;
