import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TFunction } from 'i18next';
import type { RequestContext } from '../context/request-context';
import type { MemberExtras } from '../accounts/accounts.repository';
import type { User } from '../db/schema';
import type { Tracking } from '../../shared/tracking';

export interface ApiEnv {
  Bindings: { incoming: IncomingMessage; outgoing: ServerResponse };
  Variables: { ctx: RequestContext; t: TFunction; user: User | null; sessionToken: string | null; ip: string | null; memberExtras: MemberExtras | null; tracking: Tracking };
}
