import { vi } from 'vitest';

const ORIGIN = 'http://localhost';

interface Expectation {
  method: string;
  url: string;
  answer: Promise<{ status: number; body: unknown }>;
}

/**
 * Answers the client's HTTP calls in unit tests at the fetch level, so the real ky client runs:
 * `expectRequest('/api/search.php?page=2').andRespond(200, body)`. Relative URLs resolve against
 * http://localhost as they would in the browser.
 */
export function fakeApi() {
  const expected: Expectation[] = [];
  const requests: string[] = [];
  const unexpected: string[] = [];
  class BrowserRequest extends Request {
    constructor(input: RequestInfo | URL, init?: RequestInit) {
      super(typeof input === 'string' && input.startsWith('/') ? new URL(input, ORIGIN) : input, init);
    }
  }
  vi.stubGlobal('Request', BrowserRequest);
  vi.stubGlobal('fetch', async (input: Request) => {
    const url = new URL(input.url);
    const path = `${url.pathname}${url.search}`;
    requests.push(`${input.method} ${path}`);
    const index = expected.findIndex((e) => e.method === input.method && e.url === path);
    if (index === -1) {
      unexpected.push(`${input.method} ${path}`);
      // 418 is never retried, so an unexpected call fails at once.
      return new Response(JSON.stringify({ error: 'unexpected' }), { status: 418, headers: { 'content-type': 'application/json' } });
    }
    const [{ answer }] = expected.splice(index, 1);
    const { status, body } = await answer;
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });

  return {
    /** Requests made so far, as "GET /api/…?…". */
    requests,
    /** Requests nobody expected. */
    unexpected,
    /** Requests expected but not made yet. */
    pending: () => expected.map((e) => `${e.method} ${e.url}`),
    expectRequest(url: string, method = 'GET') {
      return {
        andRespond(status: number, body: unknown) {
          expected.push({ method, url, answer: Promise.resolve({ status, body }) });
        },
        /** The answer waits until `respond` is called (to test slow and out-of-order answers). */
        andWait() {
          let respond!: (status: number, body: unknown) => void;
          const answer = new Promise<{ status: number; body: unknown }>((resolve) => {
            respond = (status, body) => resolve({ status, body });
          });
          expected.push({ method, url, answer });
          return { respond };
        },
      };
    },
  };
}

/** A browser address bar for code that reads location and calls history.replaceState. */
export function fakeAddressBar(path: string) {
  const location = new URL(path, ORIGIN);
  const history = {
    state: null as unknown,
    replaceState: vi.fn((state: unknown, _title: string, url: string) => {
      history.state = state;
      location.href = new URL(url, location).href;
    }),
  };
  vi.stubGlobal('location', location);
  vi.stubGlobal('history', history);
  return { location, history };
}

/** A browser position and permission for the geolocation store. */
export function fakeGeolocation(permission: PermissionState, position: { latitude: number; longitude: number } | null) {
  const getCurrentPosition = vi.fn((ok: (p: unknown) => void, fail: (e: unknown) => void) =>
    position ? ok({ coords: position }) : fail({ code: 1 }));
  vi.stubGlobal('navigator', {
    geolocation: { getCurrentPosition },
    permissions: { query: async () => ({ state: permission, onchange: null }) },
  });
  return { getCurrentPosition };
}
