/**
 * Passwords of 8+ characters that top the public breach-frequency lists (lower-cased).
 * Refused at signup and on change, together with passwords made of the site name or e-mail.
 */
export const COMMON_PASSWORDS = new Set([
  '12345678', '123456789', '1234567890', '12345678910', '123123123', '11111111', '00000000', '88888888', '87654321',
  '11223344', '12344321', '1q2w3e4r', '1q2w3e4r5t', '1qaz2wsx', 'qwertyui', 'qwertyuiop', 'qwerty123', 'qwerty12',
  'asdfghjk', 'asdfghjkl', 'zxcvbnm1', 'password', 'password1', 'password12', 'password123', 'passw0rd', 'p@ssw0rd',
  'p@ssword', 'iloveyou', 'iloveyou1', 'sunshine', 'princess', 'football', 'baseball', 'welcome1', 'welcome123',
  'superman', 'batman123', 'trustno1', 'whatever', 'starwars', 'computer', 'michelle', 'jennifer', 'corvette',
  'mercedes', 'mustang1', 'internet', 'samantha', 'anything', 'abcd1234', 'abc12345', 'a1b2c3d4', 'letmein1',
  'changeme', 'liverpool', 'chocolate', 'butterfly', 'charlie1', 'master12', 'michael1', 'jordan23', 'pokemon1',
  'zaq12wsx', 'q1w2e3r4', 'q1w2e3r4t5', 'aa123456', 'test1234', 'admin123', 'administrator', 'qazwsxedc',
  'passwort', 'passwort1', 'hallo123', 'schatz123', 'wachtwoord', 'welkom01', 'welkom123', 'motdepasse', 'azertyui',
  'azerty123', 'contraseña', 'contrasena', 'password1!', 'Password1', 'summer2024', 'summer2025', 'winter2024',
  'lovelove', 'sexysexy', 'loveyou1', 'babygirl', 'iloveyou2', 'forever1', 'fuckyou1', 'hello123', 'monkey12',
  'dragon12', 'shadow12', 'ashley12', 'nicole12', 'daniel12', 'jessica1', 'blink182', 'spiderman', 'ferrari1',
  'mynoob12', '987654321', '147258369', '123qweasd', '1234qwer', 'qwer1234', 'asdf1234', 'zxcv1234', 'pass1234',
  'secret12', 'sweetheart', 'datingsite', 'kindred1', 'kindred123', 'dating123', 'letmein123', 'iloveu123',
]);

/** True for passwords too easy to guess: on the list, one repeated character, or a plain sequence. */
export function isCommonPassword(password: string, context: string[] = []): boolean {
  const lower = password.toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return true;
  if (/^(.)\1+$/.test(lower)) return true;
  if ('abcdefghijklmnopqrstuvwxyz'.includes(lower) || '01234567890'.includes(lower)) return true;
  return context.some((word) => word.length >= 4 && lower.replace(/[^a-z0-9]/g, '') === word.toLowerCase().replace(/[^a-z0-9]/g, ''));
}
