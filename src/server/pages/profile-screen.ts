import { memberRow } from './member-row';
import { profileForViewer, ProfileRuleError, type ProfileView } from '../profiles/profiles.service';
import { parseId } from '../../shared/ids';

/** What the profile screen shows this viewer: the profile, or the name of the member who blocked them. */
export async function loadProfileScreen(locals: App.Locals, rawId: string | undefined): Promise<{ profile: ProfileView | null; blockedBy: string | null }> {
  const id = parseId(rawId);
  if (id === null) return { profile: null, blockedBy: null };
  const { ctx, services } = locals;
  const viewer = memberRow(locals) ?? null;
  try {
    return { profile: await profileForViewer(services.app, ctx.site, id, viewer), blockedBy: null };
  } catch (err) {
    if (!(err instanceof ProfileRuleError)) throw err;
    return { profile: null, blockedBy: String(err.params.name) };
  }
}
