// The Default layout's script: the shell every layout gets, then (members only) the live shell — realtime,
// refresh, badges, like and match modals. Only the Default layout loads it, so its stylesheets stay off landers.
import '../shell/boot';

if (document.getElementById('member-shell-data')) void import('./boot');
