/** The app icons every site has, by file name: size in pixels and how the picture fills it. */
export const APP_ICONS = {
  'icon-192.png': { size: 192, shape: 'round' },
  'icon-512.png': { size: 512, shape: 'round' },
  'icon-maskable-192.png': { size: 192, shape: 'maskable' },
  'icon-maskable-512.png': { size: 512, shape: 'maskable' },
  'apple-touch-icon.png': { size: 180, shape: 'square' },
} as const;
export type AppIconName = keyof typeof APP_ICONS;
