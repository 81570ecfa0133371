// Members get the live shell (realtime, refresh, badges, like and match modals); visitors never load it.
// Only the Default layout includes this: the shell's stylesheets stay off landers and the other layouts.
if (document.getElementById('member-shell-data')) void import('./boot');
