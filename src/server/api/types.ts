import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TFunction } from 'i18next';
import type { RequestContext } from '../context/request-context';

export interface ApiEnv {
  Bindings: { incoming: IncomingMessage; outgoing: ServerResponse };
  Variables: { ctx: RequestContext; t: TFunction };
}
