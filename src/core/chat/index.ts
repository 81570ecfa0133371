export * from './chats.store';
export * from './conversation.store';
export * from './gifts.store';
export * from './realtime';
export * from './refresh';
export * from './totals.store';
