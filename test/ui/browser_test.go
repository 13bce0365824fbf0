//go:build ui

package ui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/chronoshq/chronos/domain"
)

// The browser tests drive Debian's chromium (CHROMIUM names another binary) headless
// at 1280×800, in Europe/Paris so that local-time rendering differs from UTC. Without
// chromium they skip, saying why; in CI (CI=true) that is a failure.

// browserZone is the viewer's time zone in every browser test.
const browserZone = "Europe/Paris"

// chromium finds the browser binary.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	msg := "no chromium: install it (apt-get install chromium) or set CHROMIUM to a Chrome binary"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// newBrowser starts a headless chromium for the test and returns its context; tabs
// (e.tab) open in it, each with cookies of its own. The browser gets a bare
// environment: the zone, a language and a home of its own, nothing of the test's.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	home := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium(t)),
		chromedp.NoSandbox, // the tests may run as root, where the sandbox refuses to start
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("lang", "en-US"),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.NoInheritEnv,
		chromedp.Env("TZ="+browserZone, "LANG=en_US.UTF-8", "HOME="+home, "PATH="+os.Getenv("PATH")),
		chromedp.UserDataDir(filepath.Join(home, "profile")),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return bctx
}

// tab is one browser tab with a cookie jar of its own (a fresh browser context), at
// 1280×800, with every JavaScript dialog (data-confirm) accepted and reported to
// dialogs.
type tab struct {
	t       *testing.T
	e       *env
	ctx     context.Context
	dialogs chan string
}

func (e *env) tab(t *testing.T, bctx context.Context) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	tb := &tab{t: t, e: e, ctx: ctx, dialogs: make(chan string, 16)}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatal(err)
	}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			select {
			case tb.dialogs <- ev.Message:
			default:
			}
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	return tb
}

// timeout bounds one step, so a selector that never appears fails the test quickly.
const stepTimeout = 20 * time.Second

func (b *tab) do(actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("in the browser at %s: %v", b.location(), err)
	}
}

// open navigates to path of the dashboard server and waits for the page.
func (b *tab) open(path string) {
	b.t.Helper()
	b.do(chromedp.Navigate(b.e.srv.URL+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// submit clicks sel (a submit button or link) and waits for the page it leads to.
func (b *tab) submit(sel string) {
	b.t.Helper()
	b.loading("clicking "+sel, chromedp.Click(chromedp.CSS(sel), chromedp.NodeVisible))
}

// loading runs the action and waits for the page it loads.
func (b *tab) loading(what string, action chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, action)); err != nil {
		b.t.Fatalf("%s at %s: %v", what, b.location(), err)
	}
}

// eval evaluates a JavaScript expression in the page.
func evalIn[T any](b *tab, js string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("evaluating %q at %s: %v", js, b.location(), err)
	}
	return v
}

// text is the visible text of the first element sel matches.
func (b *tab) text(sel string) string {
	b.t.Helper()
	return evalIn[string](b, fmt.Sprintf(`(function(){var e=document.querySelector(%q);return e?e.innerText:"";})()`, sel))
}

// has reports whether sel matches a visible element.
func (b *tab) has(sel string) bool {
	b.t.Helper()
	return evalIn[bool](b, fmt.Sprintf(`(function(){var e=document.querySelector(%q);return !!e&&e.getClientRects().length>0;})()`, sel))
}

// path is the page's path and query, without the server.
func (b *tab) path() string {
	b.t.Helper()
	return strings.TrimPrefix(b.location(), b.e.srv.URL)
}

func (b *tab) location() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		return "(unknown: " + err.Error() + ")"
	}
	return loc
}

// expectDialog waits for the JavaScript dialog that the last action opened.
func (b *tab) expectDialog(want string) {
	b.t.Helper()
	select {
	case got := <-b.dialogs:
		if !strings.Contains(got, want) {
			b.t.Errorf("the dialog said %q, want %q in it", got, want)
		}
	case <-time.After(5 * time.Second):
		b.t.Errorf("no dialog asking %q", want)
	}
}

// signIn goes through the sign-in form with token and lands on the overview.
func (b *tab) signIn(token string) {
	b.t.Helper()
	b.open("/ui/")
	if p := b.path(); p != "/ui/login" {
		b.t.Fatalf("a browser without a session is at %s, want the sign-in page", p)
	}
	b.do(chromedp.SendKeys(chromedp.ID("token"), token))
	b.submit(`form[action="/ui/login"] button[type=submit]`)
	if p := b.path(); p != "/ui/" {
		b.t.Fatalf("after signing in the browser is at %s: %s", p, b.text("main"))
	}
}

// viewport sets the tab's size; dark turns prefers-color-scheme: dark on or off.
func (b *tab) viewport(w, h int64, dark bool) {
	b.t.Helper()
	scheme := "light"
	if dark {
		scheme = "dark"
	}
	b.do(chromedp.EmulateViewport(w, h), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return err
	}))
}

// screenshot saves the full page as name.png in CHRONOS_UI_SCREENSHOTS (by default a
// temporary directory of the test).
func (b *tab) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("CHRONOS_UI_SCREENSHOTS")
	if dir == "" {
		dir = b.t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// feedCharts registers two nodes and heartbeats them with growing totals, sampling the
// dashboard's series between beats, so the overview's charts and the nodes page show
// real rates.
func (e *env) feedCharts(beats int) {
	e.t.Helper()
	nodes := []domain.Worker{
		{ID: "node-a-7f3c", Host: "chronos-a.internal", PID: 4121, Version: "v1.4.0"},
		{ID: "node-b-19d2", Host: "chronos-b.internal", PID: 3877, Version: "v1.4.0"},
	}
	for _, n := range nodes {
		if err := e.store.RegisterWorker(e.ctx, n); err != nil {
			e.t.Fatal(err)
		}
	}
	totals := make([]domain.WorkerStats, len(nodes))
	for i := range beats {
		time.Sleep(60 * time.Millisecond)
		for j, n := range nodes {
			s := &totals[j]
			wave := int64((i*7+j*3)%11) + 2 // a few wakes per beat, not a flat line
			s.Claimed += wave + 1
			s.Delivered += wave
			if (i+j)%6 == 0 {
				s.Failed++
			}
			s.Delivered1m, s.Failed1m = s.Delivered, s.Failed
			s.Delivered1h, s.Failed1h = s.Delivered, s.Failed
			s.InFlight = int(wave % 4)
			s.LagP50Ms = float64(8 + (i+j)%5)
			s.LagP99Ms = float64(40 + ((i*13+j*5)%9)*6)
			if err := e.store.Heartbeat(e.ctx, n.ID, *s); err != nil {
				e.t.Fatal(err)
			}
		}
		if err := e.ui.Sampler().SampleOnce(e.ctx); err != nil {
			e.t.Fatal(err)
		}
	}
}
