// Package webui is chronos's dashboard: server-rendered HTML pages at /ui/ for the
// operators of a cluster, over the same admin use cases as /admin/v1.
//
// Everything it serves is in the binary (embed.FS): Go templates, one stylesheet and
// one small script of our own, no CDN and no build chain. Every page works without
// JavaScript; the script only refreshes the overview live, shows times in the viewer's
// zone and asks before bulk actions. docs/dashboard.md explains each page and why it is
// built this way.
//
// Sign-in exchanges an admin token (scope admin or admin:read) for a session cookie:
// signed with a key kept in the store (so every node of a cluster honours it), holding
// the token's hash (checked on every request, so revoking the token ends the session),
// HttpOnly, SameSite=Strict, Secure over TLS, expiring after Options.SessionTTL. Every
// form that changes something carries a CSRF token bound to the session; responses send
// a strict Content-Security-Policy, X-Frame-Options DENY and Referrer-Policy same-origin.
// An admin:read session sees every page and no button that changes anything, and the
// server refuses such changes from it.
package webui
