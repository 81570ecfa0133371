import type { SessionUser } from '../../shared/user.contract';
import { api, call } from '../api/client';
import { $user } from '../session/store';

type UserAnswer = { user: SessionUser };
const post = <T>(path: string, json: unknown) => call(() => api.post(path, { json, retry: 0 }).json<T>());
const keepUser = (answer: UserAnswer) => {
  $user.set(answer.user);
  return answer.user;
};

export const signup = (input: Record<string, unknown>) => post<UserAnswer>('signup.php', input).then(keepUser);
export const updateProfile = (input: Record<string, unknown>) => call(() => api.patch('profile.php', { json: input }).json<UserAnswer>()).then(keepUser);
export const resendActivation = () => post<{ sent: boolean }>('resend-activation.php', {});
export const requestPasswordReset = (email: string) => post<{ sent: boolean }>('reset-password.php', { email });
export const resetPassword = (token: string, password: string, password_repeat: string) =>
  post<UserAnswer>('reset-password-do.php', { token, password, password_repeat }).then(keepUser);
export const confirmMailChange = (token: string) => post<{ email: string }>('mail-change-do.php', { token });
export const completeSignup = (input: { token: string; name: string; password: string; date_of_birth: string }) =>
  post<UserAnswer>('complete-signup.php', input).then(keepUser);
export const changePassword = (old_password: string, password: string, password_repeat: string) =>
  post<{ changed: boolean }>('change-password.php', { old_password, password, password_repeat });
export const requestMailChange = (email: string, password: string) => post<{ sent: boolean }>('mail-change.php', { email, password });
export const saveSettings = (input: { email_prefs?: Record<string, boolean>; push_prefs?: Record<string, boolean>; invisible?: boolean; show_explicit_images?: boolean }) =>
  call(() => api.put('account-settings.php', { json: input }).json<UserAnswer>()).then(keepUser);
export const deleteAccount = (password: string, reason?: string) => post<{ deleted: boolean }>('delete-account.php', { password, reason });
