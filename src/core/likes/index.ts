export * from './like-modal.store';
export * from './likes.store';
