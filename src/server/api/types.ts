import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TFunction } from 'i18next';
import type { RequestContext } from '../context/request-context';
import type { SessionMember } from '../accounts/session-cache';
import type { User } from '../db/schema';
import type { Tracking } from '../../shared/tracking';

export interface ApiEnv {
  Bindings: { incoming: IncomingMessage; outgoing: ServerResponse };
  Variables: { ctx: RequestContext; t: TFunction; user: User | null; sessionToken: string | null; ip: string | null; member: SessionMember | null; tracking: Tracking };
}
