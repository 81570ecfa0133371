import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TFunction } from 'i18next';
import type { RequestContext } from '../context/request-context';
import type { SessionMember } from '../accounts/session-cache';
import type { User } from '../db/schema';
import type { Tracking } from '../../shared/tracking';

export interface ApiEnv {
  /**
   * `incoming`/`outgoing`: the node request. `page`: set only by a server-rendered page asking the API
   * in-process (never from the network): the page request's address and country.
   */
  Bindings: { incoming: IncomingMessage; outgoing: ServerResponse; page?: { ip: string | null; country: string | null } };
  Variables: {
    ctx: RequestContext; t: TFunction; user: User | null; sessionToken: string | null; ip: string | null; member: SessionMember | null; tracking: Tracking;
    /**
     * Set by a route whose write already told every process that the member changed (a chat send: its
     * events' bus publish carries the invalidation): the session middleware does not say it again.
     */
    announced?: boolean;
  };
}
