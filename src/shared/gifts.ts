/**
 * The gift catalogue. A gift costs the site's gift_credits times its factor; pictures are
 * `/gifts/<id>.svg`, names are the catalog keys `gift.<id>`.
 */
export const GIFTS = [
  { id: 'rose', factor: 1 },
  { id: 'heart', factor: 1 },
  { id: 'coffee', factor: 1 },
  { id: 'chocolates', factor: 2 },
  { id: 'cocktail', factor: 2 },
  { id: 'sunflower', factor: 2 },
  { id: 'teddy', factor: 3 },
  { id: 'cake', factor: 3 },
  { id: 'champagne', factor: 4 },
  { id: 'bouquet', factor: 4 },
  { id: 'star', factor: 6 },
  { id: 'diamond', factor: 10 },
] as const;
export type GiftId = (typeof GIFTS)[number]['id'];
export const giftImage = (id: string) => `/gifts/${id}.svg`;

/** Opening lines offered in the icebreaker modal: catalog keys `icebreaker.1` … `icebreaker.N`. */
export const ICEBREAKER_COUNT = 10;
