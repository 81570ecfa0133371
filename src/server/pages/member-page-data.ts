import type { Expression } from 'kysely';
import { lookingFor } from '../../shared/profile-options';
import { jsonArrayFrom, jsonRows, preparedQuery } from '../db/database';
import { type OwnPhoto, ownPhotosQuery } from '../photos/photos.service';
import { searchProfiles } from '../profiles/profiles.service';
import { loadChatScreen, loadLikesScreen } from './chat-screen';
import { loadProfileScreen } from './profile-screen';
import * as v from 'valibot';
import { SearchQuerySchema } from '../../shared/profiles.contract';
import { TRACKING_PARAMS } from '../../shared/tracking';

/**
 * What a member page shows, read before it is rendered (src/server/pages/page-steps.ts) or by the page itself:
 * the node entry runs the page's loader, hands its value to the page (`locals.pageData`), and the page's body
 * (src/server/pages/bodies) renders from exactly that value, the member as the session describes them
 * (`SessionUser`), the request and static inputs (site configuration, catalogs, build).
 */
export interface MemberPageData {
  /** The route the value was loaded for (a rewrite to another page never reads it). */
  route: MemberPageRoute;
  value: unknown;
}

type Loader = (locals: App.Locals, url: URL) => Promise<unknown>;

/** Members search: its first page of results for the filters in the address. */
async function loadMembersPage(locals: App.Locals, url: URL) {
  const { ctx, user, services } = locals;
  const params = Object.fromEntries([...url.searchParams].filter(([, value]) => value !== ''));
  const query = Object.fromEntries(Object.entries(params).filter(([k]) => !(TRACKING_PARAMS as readonly string[]).includes(k)));
  const parsed = v.safeParse(SearchQuerySchema, query);
  // A member's plain /members looks for whom their own orientation seeks (the form shows it; "Any" is a choice).
  if (parsed.success && user && url.search === '' && ctx.site.search_fields.includes('gender')) {
    const own = locals.session?.extras.profile;
    const gender = lookingFor(own?.gender, own?.sexuality);
    if (gender) parsed.output.gender = gender;
  }
  const result = await searchProfiles(services.app, ctx.site, user, parsed.success ? parsed.output : {}, user ? user.profile.id : null);
  // The search as parsed (or the first problem's message): what the form and the island show.
  return { query: parsed.success ? parsed.output : null, issue: parsed.success ? null : parsed.issues[0].message, result };
}

/** The member's own profile, interests and photos for the editor at /profile. */
async function loadOwnProfile(locals: App.Locals) {
  const { user, services } = locals;
  if (!user) throw new Error('loadOwnProfile needs a member');
  const db = services.app.db.db;
  // The profile with its interests and photos, in one query.
  const row = (await ownProfileQuery(db, user.id)).rows[0];
  if (!row) throw new Error('loadOwnProfile: the member has no profile');
  const { interest_rows, photo_rows, ...profile } = row;
  return { profile, interests: jsonRows<{ interest: string }>(interest_rows).map((i) => i.interest), photos: jsonRows<OwnPhoto>(photo_rows) };
}

const ownProfileQuery = preparedQuery((db, userId: number) => db.selectFrom('profiles').selectAll('profiles')
  .select((eb) => [
    jsonArrayFrom(db, eb.selectFrom('profile_interests').select('interest').whereRef('profile_interests.profile_id', '=', 'profiles.id') as never).as('interest_rows'),
    jsonArrayFrom(db, ownPhotosQuery(db, eb.ref('profiles.id') as unknown as Expression<number>) as never).as('photo_rows'),
  ])
  .where('user_id', '=', userId), [-434361]);

/**
 * Each member page's loader and the paths it answers: the one table both the node entry
 * (`memberPageLoader`) and the pages themselves (`pageData`) read, so both always load the same.
 */
const LOADERS = {
  members: { path: /^\/members$/, load: loadMembersPage },
  'members-id': { path: /^\/members\/\d{1,12}$/, load: (locals: App.Locals, url: URL) => loadProfileScreen(locals, url.pathname.split('/')[2]) },
  chats: { path: /^\/chats$/, load: (locals: App.Locals) => loadChatScreen(locals, null) },
  likes: { path: /^\/likes(?:\/(?:received|given|matches))?$/, load: (locals: App.Locals) => loadLikesScreen(locals) },
  profile: { path: /^\/profile$/, load: (locals: App.Locals) => loadOwnProfile(locals) },
} satisfies Record<string, { path: RegExp; load: Loader }>;

export type MemberPageRoute = keyof typeof LOADERS;
type Loaded<R extends MemberPageRoute> = Awaited<ReturnType<(typeof LOADERS)[R]['load']>>;
/** What the loader of member page `R` answers. */
export type LoadedPage<R extends MemberPageRoute> = Loaded<R>;

/** The loader of a member page at `pathname`, or null when the page reads its data while rendering. */
export function memberPageLoader(pathname: string): { route: MemberPageRoute; load: Loader } | null {
  for (const [route, { path, load }] of Object.entries(LOADERS)) if (path.test(pathname)) return { route: route as MemberPageRoute, load };
  return null;
}

/**
 * The value the entry loaded for this route, or the page's own load through the same loader. Pages call
 * this instead of a loader, so a page rendered by the entry and a page rendered alone read the same thing.
 */
export async function pageData<R extends MemberPageRoute>(locals: App.Locals, route: R, url: URL): Promise<Loaded<R>> {
  const given = locals.pageData;
  if (given && given.route === route) return given.value as Loaded<R>;
  return (await LOADERS[route].load(locals, url)) as Loaded<R>;
}

